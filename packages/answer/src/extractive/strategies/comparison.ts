import { containsIdentifier, identifiers, terms } from '../../terms.util';
import { definedAs, definitionOf, ownSectionOpening } from '../neighbours';
import { arrange, fill } from '../select';
import type { Candidate, Context } from '../types';

const CONTRAST =
  /\b(?:before|after|whereas|while|unlike|instead|but|than|only|always|never|differ\w*|both|however|rather)\b/i;

interface SideKeys {
  ids: string[];
  head: string | undefined;
}

/** What names a side of a comparison: its identifiers, else its first content word. */
function sideKeys(side: string): SideKeys {
  const ids = identifiers(side);
  return { ids, head: ids.length > 0 ? undefined : terms(side)[0] };
}

function names(c: Candidate, side: SideKeys): boolean {
  if (side.ids.some((id) => containsIdentifier(c.lower, id))) return true;
  return side.head !== undefined && c.termSet.has(side.head);
}

/** The setting a comparison side names with a value after it ("onProtoPoisoning error"), if any. */
function settingOf(side: string): string | undefined {
  const words = side.trim().split(/\s+/);
  if (words.length !== 2) return undefined;
  const [id] = identifiers(words[0] ?? '');
  return id !== undefined && id === (words[0] ?? '').replace(/`/g, '').toLowerCase() ? id : undefined;
}

/** Comparisons: sentences naming both sides first, then the best about each side. */
export function compare(ctx: Context): Candidate[] | undefined {
  const { plan, scored, profile } = ctx;
  const sides = plan.sides;
  if (!sides) return undefined;
  const [a, b] = sides.map(sideKeys) as [SideKeys, SideKeys];
  const sentences = scored.candidates.filter((c) => c.unit.kind === 'sentence' && c.relevance > 0);
  // An enumeration ("onRequest, onResponse, preParsing, …") names both sides and compares nothing.
  const weight = (c: Candidate): number =>
    c.score *
    ((c.unit.text.match(/,/g)?.length ?? 0) >= profile.enumerationCommas ? profile.enumerationFactor : 1) *
    (CONTRAST.test(c.unit.text) ? profile.contrastFactor : 1);
  // Two names the pages define each ("`ip` - The IP address … taken from …", "`ips` - An array
  // …") differ in what those definitions say: each side's own entry, then a sentence naming both.
  const both = sentences.filter((c) => names(c, a) && names(c, b)).sort((x, y) => weight(y) - weight(x));
  const [defA, defB] = [a, b].map((side) =>
    side.ids[0] ? definitionOf(scored.candidates, side.ids[0]) : undefined,
  );
  if (defA && defB && defA !== defB)
    return arrange(
      [
        ...definedAs(defA, scored.candidates, profile),
        ...definedAs(defB, scored.candidates, profile),
        ...both.slice(0, 1),
      ],
      undefined,
      defA,
    );
  const bestOf = (side: SideKeys): Candidate | undefined =>
    sentences.filter((c) => names(c, side)).sort((x, y) => y.score - x.score)[0];
  const lead = both[0];
  const chosen: Candidate[] = [];
  if (lead) fill(chosen, both.slice(0, 2), 0, profile);
  // One side's own entry, when only one is among the sources ("preClose vs onClose" with the
  // `preClose` section but not `onClose`'s): what that side is, beside what names both.
  const own = defA ?? defB;
  if (own && lead && !chosen.includes(own)) chosen.push(...definedAs(own, scored.candidates, profile));
  // What the sentence naming both goes on to say in its paragraph or list entry is why ("Prefer
  // hooks over generic middleware. Middleware adapters work, but native integrations are
  // typically better …"), when it still names a side.
  const sequel =
    lead &&
    sentences.find(
      (c) =>
        c.sourceIndex === lead.sourceIndex &&
        c.unit.block === lead.unit.block &&
        c.unit.position === lead.unit.position + 1 &&
        [...sides.flatMap((side) => terms(side)), ...a.ids, ...b.ids].some(
          (t) => c.termSet.has(t) || containsIdentifier(c.lower, t),
        ),
    );
  if (sequel) fill(chosen, [sequel], 0, profile);
  for (const c of [bestOf(a), bestOf(b)]) if (c && chosen.length < 2) fill(chosen, [c], 0, profile);
  if (chosen.length === 0) return undefined;
  // "onProtoPoisoning error vs remove" weighs two values of one named setting: what the setting
  // decides, the first sentence of its own section, comes before what its values do.
  const setting = [sides[0], sides[1]].map(settingOf).find((id) => id !== undefined);
  const purpose = setting ? ownSectionOpening(scored.candidates, setting) : undefined;
  if (purpose && !chosen.includes(purpose)) {
    chosen.unshift(purpose);
    return arrange(chosen, undefined, purpose);
  }
  return arrange(chosen, undefined, chosen[0]);
}
