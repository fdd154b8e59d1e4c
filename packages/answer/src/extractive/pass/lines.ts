import { identifiers } from '../../terms.util';
import { instructsWithCode } from '../instructions';
import { followsWithin, NAME_HEADING, previousInBlock } from '../neighbours';
import type { Candidate, Context } from '../types';

/**
 * "What is the default …?": reference pages state an option's default on a line of its own
 * ("Default: `1048576` (1MiB)") that shares few words with the question, so it rarely scores
 * high itself. When a chosen sentence's section has such a line, it follows the first sentence
 * chosen from that section.
 */
export function withDefaultLine(chosen: Candidate[], { scored, profile }: Context): Candidate[] {
  const { candidates, ids } = scored;
  const out = [...chosen];
  // "What is the default of `requestTimeout`?": the Default line under that name's own heading.
  const named = candidates.find(
    (d) =>
      d.unit.kind === 'sentence' &&
      /^default\b/i.test(d.unit.text) &&
      ids.some((id) => NAME_HEADING.exec(d.unit.heading.trim())?.[1]?.toLowerCase() === id),
  );
  if (named) {
    if (out.includes(named)) return out;
    const host = out.findIndex(
      (c) => c.sourceIndex === named.sourceIndex && c.unit.heading === named.unit.heading,
    );
    if (host >= 0) out.splice(host + 1, 0, named);
    else out.unshift(named);
    return out;
  }
  for (const c of chosen) {
    if (c.unit.kind !== 'sentence' || !c.unit.heading) continue;
    const line = candidates.find(
      (d) =>
        d.unit.kind === 'sentence' &&
        d.sourceIndex === c.sourceIndex &&
        d.unit.heading === c.unit.heading &&
        /^default\b/i.test(d.unit.text) &&
        d.unit.text.length <= profile.defaultLineChars,
    );
    if (!line || out.includes(line)) continue;
    out.splice(out.indexOf(c) + 1, 0, line);
    return out;
  }
  return out;
}

/**
 * A how-to answer must say what to use. When its first sentence names nothing in code ("Every
 * time a new route is registered, you can read and modify the route options.") and the sentence
 * before it in its paragraph does ("An alternative approach is to make use of the onRoute hook
 * …"), that one opens the answer: it is what the reader writes.
 */
export function withNamingLead(chosen: Candidate[], { scored }: Context): Candidate[] {
  const first = chosen[0];
  if (!first || first.unit.kind !== 'sentence' || identifiers(first.unit.text).length > 0) return chosen;
  const previous = previousInBlock(first, scored.candidates);
  if (
    !previous ||
    previous.unit.kind !== 'sentence' ||
    chosen.includes(previous) ||
    identifiers(previous.unit.text).length === 0
  )
    return chosen;
  return [previous, ...chosen];
}

/**
 * How-to and troubleshooting answers need the step, and pages often state it a few sentences
 * after the description that matched the question ("Fastify natively supports JSON and text …
 * To support other content types, use the `addContentTypeParser` API"), in words the question
 * does not use. The first such instruction that names an API, shortly after the first chosen
 * sentence in its section, follows that sentence.
 */
export function withInstruction(chosen: Candidate[], { scored }: Context): Candidate[] {
  const { candidates } = scored;
  let lead: Candidate | undefined;
  let step: Candidate | undefined;
  for (const anchor of chosen) {
    if (anchor.unit.kind !== 'sentence') continue;
    // Right before it in its paragraph ("To handle errors inside the route, specify the
    // `attachValidation` option. If there is a validation error, …"), else a few units after it.
    const before = previousInBlock(anchor, candidates);
    step =
      (before && instructsWithCode(before) ? before : undefined) ??
      candidates.find((c) => followsWithin(anchor, c, 4) && instructsWithCode(c));
    if (step) {
      lead = anchor;
      break;
    }
  }
  if (!lead || !step || chosen.includes(step)) return chosen;
  const out = [...chosen];
  const after = out
    .filter((c) => c.sourceIndex === lead.sourceIndex && c.unit.position < step.unit.position)
    .pop();
  out.splice(after ? out.indexOf(after) + 1 : out.indexOf(lead) + 1, 0, step);
  return out;
}

/** A sentence that says something does not happen or cannot be done. */
const DENIAL = /\b(?:not|never|cannot|can't|doesn't|don't|isn't|aren't|won't|no longer)\b/;

/**
 * A yes-no question is often answered "no" by the sentence right after the description it
 * matched ("… all paths will be matched as lowercase. This option does not affect query
 * strings"), which shares few of the question's words and so ranks below the budget. The first
 * such denial, within two sentences after a chosen one in its section and naming a word of the
 * question, follows that sentence.
 */
export function withDenial(chosen: Candidate[], { scored }: Context): Candidate[] {
  for (const anchor of chosen) {
    if (anchor.unit.kind !== 'sentence') continue;
    const next = scored.candidates.find(
      (c) =>
        followsWithin(anchor, c, 2) &&
        DENIAL.test(c.lower) &&
        [...scored.weights.keys()].some((t) => c.termSet.has(t)),
    );
    if (next && !chosen.includes(next)) {
      const out = [...chosen];
      out.splice(out.indexOf(anchor) + 1, 0, next);
      return out;
    }
  }
  return chosen;
}
