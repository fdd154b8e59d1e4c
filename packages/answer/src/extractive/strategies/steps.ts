import { containsIdentifier } from '../../terms.util';
import { headingFit } from '../features';
import { arrange } from '../select';
import type { Candidate, Context } from '../types';
import { codeSection, type Section } from './code';

/** How-to questions: the section whose heading matches, in document order, with its first code block. */
export function steps(ctx: Context): Candidate[] | undefined {
  const { plan, scored, profile } = ctx;
  const sections = new Map<string, Section>();
  for (const c of scored.candidates) {
    const key = `${c.sourceIndex}\u0000${c.unit.heading}`;
    let section = sections.get(key);
    if (!section) {
      section = {
        fit: headingFit(scored, c.unit.heading || c.source.title),
        best: 0,
        units: [],
        covered: new Set(),
      };
      sections.set(key, section);
    }
    section.units.push(c);
    if (c.unit.kind === 'sentence') section.best = Math.max(section.best, c.score);
    for (const t of scored.weights.keys())
      if (c.termSet.has(t) || c.headingTerms.has(t)) section.covered.add(t);
    for (const id of scored.ids) if (containsIdentifier(c.lower, id)) section.covered.add(id);
  }
  // A heading naming the question's rarest word is not enough: the section must have at least
  // half of the question's distinct terms ("reset the log level" is not "reset my password").
  const asked = scored.weights.size + scored.ids.length;
  // Among matching headings, the better retrieved source (a guide before a type reference) wins.
  const sectionRank = (s: Section): number =>
    s.fit + s.best + profile.howToSourceShare * (1 - (s.units[0]?.sourceIndex ?? 0) / Math.max(1, sources));
  const sources = scored.candidates.reduce((n, c) => Math.max(n, c.sourceIndex + 1), 0);
  let pick: Section | undefined;
  for (const section of sections.values()) {
    if (section.fit < profile.howToSectionFit || section.best <= 0 || section.covered.size * 2 < asked)
      continue;
    if (!pick || sectionRank(section) > sectionRank(pick)) pick = section;
  }
  if (!pick) return codeSection(sections.values(), ctx, asked);
  const chosen: Candidate[] = [];
  let chars = 0;
  let code: Candidate | undefined;
  for (const c of pick.units) {
    if (c.unit.kind === 'code') {
      if (!code && c.unit.text.length <= profile.maxCodeChars) code = c;
      continue;
    }
    if (chosen.length >= profile.maxSentences || c.quality < profile.stepQuality) continue;
    if (chosen.length > 0 && chars + c.unit.text.length > profile.maxChars) continue;
    chosen.push(c);
    chars += c.unit.text.length;
  }
  if (chosen.length === 0) return undefined;
  // A code block far below the sentences shown would read as unrelated; keep it when it is near.
  const last = chosen[chosen.length - 1] as Candidate;
  if (code && code.unit.position > last.unit.position + 3 && !plan.asksHow) code = undefined;
  return arrange(chosen, code, chosen[0]);
}
