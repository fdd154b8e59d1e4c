import type { AnswerSource } from '@kbqa/core';
import { cleanInline, cleanMarkup, splitMarkdownUnits, type TextUnit } from '@kbqa/text';
import { terms } from '../terms.util';
import type { SourceUnit, UnitRecord } from './types';

/** The units of the sources, and what each source holds as a whole. */
export interface ReadSources {
  units: UnitRecord[];
  /** Per source: every term of its title, headings and text. */
  sourceTerms: Array<Set<string>>;
  /** Per source: its title and text, lowercased. */
  sourceLower: string[];
}

/**
 * The units of a source. A passage cut from the middle of a section (the chunker starts a new
 * chunk when a section outgrows it) does not repeat the section's heading; its first units get
 * the last heading of the source's `headingPath`, so an option's description continued in a
 * second chunk ("Routes without an explicit `handlerTimeout` inherit …") is still under
 * `handlerTimeout`, for labels, section matching and headings that name what was asked.
 */
function unitsOf(source: AnswerSource): SourceUnit[] {
  const units: SourceUnit[] = splitMarkdownUnits(cleanMarkup(source.content));
  const section = source.headingPath?.[source.headingPath.length - 1];
  const heading = section ? cleanInline(section).trim() : '';
  if (!heading) return units;
  for (let i = 0; i < units.length && units[i]?.heading === ''; i++)
    units[i] = { ...(units[i] as TextUnit), heading, inherited: true };
  return units;
}

/**
 * Every unit (sentence or code block) of the sources in order, with its terms. `midSection` is
 * where a passage that starts in the middle of its section counts its sentences from: past the
 * opening sentences, which say what the section is about.
 */
export function readSources(sources: AnswerSource[], midSection: number): ReadSources {
  const units: UnitRecord[] = [];
  const sourceTerms: Array<Set<string>> = [];
  const sourceLower: string[] = [];
  sources.forEach((source, sourceIndex) => {
    const sectionCounts = new Map<string, number>();
    const all = new Set(terms(source.title));
    // A section's units share its heading: its terms are read once.
    const headings = new Map<string, Set<string>>();
    for (const unit of unitsOf(source)) {
      const unitTerms = terms(unit.text);
      let headingTerms = headings.get(unit.heading);
      if (!headingTerms) {
        headingTerms = new Set(terms(`${unit.heading} ${source.title}`));
        headings.set(unit.heading, headingTerms);
      }
      for (const t of unitTerms) all.add(t);
      for (const t of headingTerms) all.add(t);
      // A passage cut from the middle of a section starts in its middle, not at its opening.
      const sectionIndex = sectionCounts.get(unit.heading) ?? (unit.inherited ? midSection : 0);
      if (unit.kind === 'sentence') sectionCounts.set(unit.heading, sectionIndex + 1);
      units.push({
        unit,
        sourceIndex,
        source,
        terms: unitTerms,
        termSet: new Set(unitTerms),
        headingTerms,
        lower: unit.text.toLowerCase(),
        sectionIndex,
      });
    }
    sourceTerms.push(all);
    sourceLower.push(`${source.title}\n${source.content}`.toLowerCase());
  });
  return { units, sourceTerms, sourceLower };
}
