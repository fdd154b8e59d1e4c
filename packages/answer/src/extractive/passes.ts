import { withAnnounced } from './pass/announced';
import { withAntecedents } from './pass/antecedents';
import { withNamingLead } from './pass/lines';
import { ownWordsFirst } from './pass/names';
import type { QuestionPlan } from './plan';
import type { Candidate, Context } from './types';

/** A rule applied to the units a strategy chose, when the question calls for it. */
export interface Pass {
  name: string;
  when(plan: QuestionPlan): boolean;
  apply(chosen: Candidate[], ctx: Context): Candidate[];
}

/**
 * The passes after the strategy, in the order they run; each sees what the one before returned.
 * An ablation switches one off by name (ExtractiveAnswerGeneratorOptions.disabled). Each one here
 * costs key facts on the unseen sets when switched off (docs/answers.md); the passes that did not
 * (a default line, an instruction, an example, a denial, a named definition, list names) were
 * removed.
 */
export const PASSES = [
  { name: 'namingLead', when: (plan) => plan.type === 'how-to', apply: withNamingLead },
  { name: 'ownWordsFirst', when: (plan) => plan.hasContext, apply: ownWordsFirst },
  { name: 'antecedents', when: () => true, apply: withAntecedents },
  // Last: a sentence that announces a block brings it, wherever the passes above placed it.
  { name: 'announcedBlocks', when: () => true, apply: withAnnounced },
] as const satisfies readonly Pass[];

export type PassName = (typeof PASSES)[number]['name'];

/** The names of {@link PASSES}, in order. */
export const PASS_NAMES: readonly PassName[] = PASSES.map((pass) => pass.name);

/** The chosen units after every pass that applies and is not switched off. */
export function runPasses(chosen: Candidate[], ctx: Context, off: ReadonlySet<string>): Candidate[] {
  let out = chosen;
  for (const pass of PASSES) if (!off.has(pass.name) && pass.when(ctx.plan)) out = pass.apply(out, ctx);
  return out;
}
