import { sectionOpening } from '../neighbours';
import type { ExtractiveProfile } from '../profile';
import type { Candidate, Context } from '../types';
import { NAMED_ENTRY } from './names';

/**
 * A sentence that opens by pointing back at the one before it: "This may result in …", "It is …",
 * or an instruction about it: "Enable it only when …", "Use them sparingly".
 */
const ANAPHOR =
  /^(?:this|that|these|those|it|they|such|doing so|in (?:this|that|such a) case|[a-z]+\s+(?:it|them)\b)/i;
/** "these four properties", "the above two options": a count of things named earlier. */
const COUNTED_BACK = /\b(?:these|those|the\s+above)\s+(?:two|three|four|five|six|seven|eight|\d+)\s+[a-z]+/i;
/** A list entry's name that is an identifier: `ip`, `.status(code)`, `@acme/cors`. */
const NAME_ENTRY = /^[.A-Za-z_$@][\w$.@/-]*(?:\([^()]*\))?$/;
/** A list entry that opens with a capitalized name and a colon: "Autocannon: An HTTP/1.1 …". */
const GLOSSARY_ENTRY = /^[A-Z][\w.-]{1,40}:\s+\S/;
/** A name that is a value: `true`, `false`, `null`, `undefined`. */
const LITERAL = /^(?:true|false|null|undefined)$/;

/**
 * What a quoted sentence cannot be read without, when it is not quoted itself: for a sentence
 * opening with "This" / "It" / "Such" …, the sentence before it in its paragraph, which says
 * what "this" is ("… errors from `ajv` are run through the `schemaErrorFormatter` function …" for
 * "This may result in odd error messages …"); for a list entry, the sentence ending in ":" that
 * introduces its list ("Connection draining based on the `forceCloseConnections` option:" for
 * "`"idle"` — idle connections are closed"); for a sentence counting things named earlier ("…
 * emits only these four properties …"), the opening of its section, which names them. The name
 * the reader needs is often in that sentence.
 */
export function antecedentOf(
  c: Candidate,
  candidates: Candidate[],
  profile: ExtractiveProfile,
): Candidate | undefined {
  const at = candidates.indexOf(c);
  const previous = candidates[at - 1];
  // "… emits only these four properties …" counts what an earlier sentence of its section lists.
  if (COUNTED_BACK.test(c.unit.text)) {
    const opening = sectionOpening(c, candidates, profile);
    if (opening && opening !== c && opening.unit.position < c.unit.position) return opening;
  }
  if (!previous || previous.sourceIndex !== c.sourceIndex || previous.unit.heading !== c.unit.heading) return;
  if (previous.unit.block === c.unit.block) {
    return ANAPHOR.test(c.unit.text.replace(/^[`*_]+/, '')) ? previous : undefined;
  }
  // An entry named by an identifier ("`ip` - The IP address …") reads alone; one named by a
  // value ("`"idle"` — …", "`true` — …") is a value of what the introduction names.
  const name = NAMED_ENTRY.exec(c.unit.text)?.[1];
  if (name !== undefined && NAME_ENTRY.test(name) && !LITERAL.test(name)) return undefined;
  // So does a glossary entry named in prose: "Autocannon: An HTTP/1.1 benchmarking tool …".
  if (GLOSSARY_ENTRY.test(c.unit.text)) return undefined;
  // The first unit of its block: an entry of a list when a sentence ending in ":" comes shortly
  // before it, with only sentences (the list's other entries) between.
  for (let i = at - 1; i >= 0 && i >= at - profile.maxListReach; i--) {
    const p = candidates[i] as Candidate;
    if (p.sourceIndex !== c.sourceIndex || p.unit.heading !== c.unit.heading || p.unit.kind !== 'sentence')
      return undefined;
    if (p.unit.text.endsWith(':')) return p;
  }
  return undefined;
}

/** Each chosen sentence preceded by what it cannot be read without ({@link antecedentOf}). */
export function withAntecedents(chosen: Candidate[], { scored, profile }: Context): Candidate[] {
  const out = [...chosen];
  for (const c of chosen) {
    if (c.unit.kind !== 'sentence') continue;
    const before = antecedentOf(c, scored.candidates, profile);
    if (before && !out.includes(before)) out.splice(out.indexOf(c), 0, before);
  }
  return out;
}
