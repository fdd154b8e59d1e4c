/**
 * Whether the question is about something the documentation never names
 * (AnswerRequest.unknownWords: words no passage of the project has): two such words ("cron",
 * "midnight"; "Raspberry", "Pi"), or one written as a name ("PM2", "NestJS", "LDAP", "Fly" of
 * "Fly.io", a capitalized word inside the sentence). One plain word no page uses is a paraphrase
 * ("colorized", "took"), and a number an example ("415"): neither says the topic is missing.
 */
export function namesWhatDocsLack(question: string, unknownWords: string[]): boolean {
  const words = unknownWords.filter((w) => /\p{L}/u.test(w));
  if (words.length >= 2) return true;
  const [word] = words;
  if (word === undefined) return false;
  const first = /[\p{L}\p{N}]+/u.exec(question)?.[0];
  const capitalized = /^\p{Lu}/u.test(word) && word !== first;
  return capitalized || /\p{Lu}.*\p{Lu}|\p{L}\d|\d\p{L}|\p{Ll}\p{Lu}/u.test(word);
}
