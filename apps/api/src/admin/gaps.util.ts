import { contentTerms, jaccard } from '@kbqa/answer';

// No relevance floor: on a small site BM25's IDF is near zero for words that most pages share, so a
// right, cited and well-rated answer scored 5e-7 in the dashboard's browser test. Whether an answer
// found something is left to the answer generator: no sources stored, or its "not covered" answer.
/** Least content-word Jaccard for a wording to join a group of similar questions. */
export const GAP_SIMILARITY_MIN = 0.5;
/** Distinct wordings a group shows. */
export const GAP_EXAMPLES = 5;
/** Groups one call answers, the most asked first. */
export const MAX_GAPS = 100;

/** A question whose answer had no relevant source, or was rated bad. */
export interface GapQuestion {
  question: string;
  /** Stored timestamp of the question. */
  askedAt: string;
  noSource: boolean;
  ratedBad: boolean;
}

export interface GapGroup {
  /** The most frequent wording of the group. */
  question: string;
  count: number;
  no_source: number;
  rated_bad: number;
  /** Up to {@link GAP_EXAMPLES} distinct wordings, the most frequent first. */
  examples: string[];
  /** Stored timestamp of the latest question of the group. */
  last_asked: string;
}

interface Wording {
  text: string;
  terms: Set<string>;
  count: number;
  noSource: number;
  ratedBad: number;
  lastAsked: string;
}

/**
 * Groups questions by similar wording: the same text up to case and spacing is one wording;
 * wordings, most frequent first, then join the first group whose first (most frequent) wording
 * shares at least {@link GAP_SIMILARITY_MIN} of their content words (Jaccard of lowercased,
 * stemmed words without stop words), else start a group. Groups are sorted by count, then by
 * the latest question. Greedy, so the result depends only on the counts and order of wordings.
 */
export function groupGaps(questions: readonly GapQuestion[], max = MAX_GAPS): GapGroup[] {
  const wordings = new Map<string, Wording>();
  for (const q of questions) {
    const text = q.question.trim().replace(/\s+/g, ' ');
    if (!text) continue;
    const key = text.toLowerCase();
    let w = wordings.get(key);
    if (!w) {
      w = { text, terms: contentTerms(text), count: 0, noSource: 0, ratedBad: 0, lastAsked: q.askedAt };
      wordings.set(key, w);
    }
    w.count += 1;
    if (q.noSource) w.noSource += 1;
    if (q.ratedBad) w.ratedBad += 1;
    if (q.askedAt > w.lastAsked) w.lastAsked = q.askedAt;
  }
  const ordered = [...wordings.values()].sort(
    (a, b) => b.count - a.count || (a.lastAsked < b.lastAsked ? 1 : a.lastAsked > b.lastAsked ? -1 : 0),
  );
  const groups: Array<{ head: Wording; members: Wording[] }> = [];
  for (const w of ordered) {
    // A wording without content words ("how?") only ever matches itself.
    const group =
      w.terms.size === 0
        ? undefined
        : groups.find((g) => jaccard(g.head.terms, w.terms) >= GAP_SIMILARITY_MIN);
    if (group) group.members.push(w);
    else groups.push({ head: w, members: [w] });
  }
  return groups
    .map(({ head, members }) => ({
      question: head.text,
      count: sum(members, (m) => m.count),
      no_source: sum(members, (m) => m.noSource),
      rated_bad: sum(members, (m) => m.ratedBad),
      examples: members.slice(0, GAP_EXAMPLES).map((m) => m.text),
      last_asked: members.reduce(
        (latest, m) => (m.lastAsked > latest ? m.lastAsked : latest),
        head.lastAsked,
      ),
    }))
    .sort(
      (a, b) => b.count - a.count || (a.last_asked < b.last_asked ? 1 : a.last_asked > b.last_asked ? -1 : 0),
    )
    .slice(0, max);
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}
