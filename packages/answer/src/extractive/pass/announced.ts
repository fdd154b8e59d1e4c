import type { TextUnit } from '@kbqa/text';
import { announces } from '../../answer-hygiene';

import type { Candidate, Context } from '../types';

/** What the pass needs of a chosen unit: the unit and which source it comes from. */
export interface SourcedUnit {
  unit: TextUnit;
  sourceIndex: number;
}

/** Most list items shown after a sentence announcing them, and their character budget. */
const MAX_ITEMS = 8;
const MAX_ITEM_CHARS = 600;

/**
 * A chosen sentence that announces what follows it ("… is provided according to the schedule
 * below:", "… as per the following example") brings the code block or list that follows it in
 * its passage, when one does and it fits: without it, the sentence promises what the answer does
 * not show, and the hygiene guard would drop it with whatever fact it states.
 */
export function withAnnouncedBlocks<C extends SourcedUnit>(
  chosen: C[],
  candidates: C[],
  maxCodeChars: number,
): C[] {
  const out: C[] = [];
  for (const c of chosen) {
    if (out.includes(c)) continue;
    out.push(c);
    if (c.unit.kind !== 'sentence' || c.unit.listItem || !announces(c.unit.text)) continue;
    const shown = announcedBlock(c, candidates, maxCodeChars);
    for (const block of shown) {
      const at = out.indexOf(block);
      if (at >= 0) out.splice(at, 1);
      out.push(block);
    }
  }
  // A block moved up behind its announcement is not repeated where it stood.
  return out.filter((c, i) => out.indexOf(c) === i);
}

function announcedBlock<C extends SourcedUnit>(c: C, candidates: C[], maxCodeChars: number): C[] {
  const after = candidates
    .filter((x) => x.sourceIndex === c.sourceIndex && x.unit.position > c.unit.position)
    .sort((a, b) => a.unit.position - b.unit.position);
  const next = after[0];
  if (!next || next.unit.position !== c.unit.position + 1) return [];
  if (next.unit.kind === 'code') return next.unit.text.length <= maxCodeChars ? [next] : [];
  if (!next.unit.listItem) return [];
  const items: C[] = [];
  let chars = 0;
  let position = c.unit.position;
  for (const x of after) {
    if (x.unit.position !== position + 1 || !x.unit.listItem || x.unit.heading !== c.unit.heading) break;
    if (items.length >= MAX_ITEMS || chars + x.unit.text.length > MAX_ITEM_CHARS) {
      // A list longer than the answer has room for shows its first items and says there are more.
      const last = items[items.length - 1];
      return last ? [...items, { ...last, unit: { ...last.unit, text: '…' } }] : [];
    }
    items.push(x);
    chars += x.unit.text.length;
    position = x.unit.position;
  }
  return items;
}

/** The pass: {@link withAnnouncedBlocks} over the scored units, code up to the profile's length. */
export function withAnnounced(chosen: Candidate[], ctx: Context): Candidate[] {
  return withAnnouncedBlocks(chosen, ctx.scored.candidates, ctx.profile.maxCodeChars);
}
