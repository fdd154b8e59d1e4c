import type { ExtractiveProfile } from './profile';
import { follows } from './select';
import type { Candidate } from './types';

/** A heading that is only a name: `` `exposeHeadRoutes` ``, `reply.code(statusCode)`, `setNotFoundHandler`. */
export const NAME_HEADING = /^`?([A-Za-z_$@][\w$.@/-]*(?:\([^()]*\))?)`?$/;

/** The name a list entry or table row opens with: "`query` - …", "| `bodyLimit` | …". */
const ENTRY_NAME = /^(?:\|\s*)?`([^`\n]{1,60})`\s*(?:[-\u2013\u2014:|;]|$)/;

/** Whether `c` is a sentence of `anchor`'s section at most `distance` units after it. */
export function followsWithin(anchor: Candidate, c: Candidate, distance: number): boolean {
  return (
    c.unit.kind === 'sentence' &&
    c.sourceIndex === anchor.sourceIndex &&
    c.unit.heading === anchor.unit.heading &&
    c.unit.position > anchor.unit.position &&
    c.unit.position <= anchor.unit.position + distance
  );
}

/** The unit right before `c` in its paragraph or list entry (same source and block), if any. */
export function previousInBlock(c: Candidate, candidates: Candidate[]): Candidate | undefined {
  const previous = candidates[candidates.indexOf(c) - 1];
  return previous?.sourceIndex === c.sourceIndex && previous.unit.block === c.unit.block
    ? previous
    : undefined;
}

/** The first sentence that reads alone of the section a unit is in, when the section has its own heading. */
export function sectionOpening(
  unit: Candidate,
  candidates: Candidate[],
  profile: ExtractiveProfile,
): Candidate | undefined {
  if (!unit.unit.heading) return undefined;
  return candidates.find(
    (c) =>
      c.unit.kind === 'sentence' &&
      c.sourceIndex === unit.sourceIndex &&
      c.unit.heading === unit.unit.heading &&
      c.sectionIndex === 0 &&
      c.quality >= profile.followQuality,
  );
}

/** The sentence right before a code block that introduces it (ends in ":"), if any. */
export function introOf(code: Candidate, candidates: Candidate[]): Candidate | undefined {
  return candidates.find((c) => c.unit.kind === 'sentence' && c.unit.text.endsWith(':') && follows(c, code));
}

/** The name a heading that is a name alone gives, lowercased, without its parameters. */
function headingName(heading: string): string | undefined {
  return NAME_HEADING.exec(heading.trim())?.[1]
    ?.replace(/\(.*\)$/, '')
    .toLowerCase();
}

/**
 * The sentence that says what a name is: the first under a heading that is the name alone
 * (`### \`requestTimeout\``), else a list entry or table row that opens with it ("`ip` - The IP
 * address …", "| `bodyLimit` | …").
 */
export function definitionOf(candidates: Candidate[], id: string): Candidate | undefined {
  let entry: Candidate | undefined;
  for (const c of candidates) {
    if (c.unit.kind !== 'sentence' || /^default\b/i.test(c.unit.text)) continue;
    const heading = headingName(c.unit.heading);
    // The first sentence of the section that reads alone ("Or `async/await`" after a code block does not).
    // `fastify.after()` is documented under its bare name: "#### after".
    const named = heading !== undefined && (heading === id || id.endsWith(`.${heading}`));
    if (named && c.sectionIndex <= 1 && c.unit.text.split(/\s+/).length >= 4) return c;
    const name = ENTRY_NAME.exec(c.unit.text.trim())?.[1]
      ?.replace(/\(.*\)$/, '')
      .replace(/^\./, '')
      .toLowerCase();
    if (!entry && name !== undefined && (name === id || id.endsWith(`.${name}`))) entry = c;
  }
  return entry;
}

/** The first sentence, other than its Default line, of the section headed by a name alone. */
export function ownSectionOpening(candidates: Candidate[], id: string): Candidate | undefined {
  return candidates.find(
    (c) =>
      c.unit.kind === 'sentence' && !/^default\b/i.test(c.unit.text) && headingName(c.unit.heading) === id,
  );
}

/**
 * A name's defining sentence and, when that is a short opening ("Triggered when `fastify.close()`
 * is invoked to stop the server."), the next sentence of its section, which says what sets the
 * name apart: two hooks can open with the same words.
 */
export function definedAs(def: Candidate, candidates: Candidate[], profile: ExtractiveProfile): Candidate[] {
  if (def.unit.text.length > profile.shortDefinition) return [def];
  const next = candidates.find((c) => followsWithin(def, c, 1) && c.quality >= profile.followQuality);
  return next ? [def, next] : [def];
}
