import type { QuestionType } from '../question-type.util';
import { withAnnounced } from './pass/announced';
import { withAntecedents } from './pass/antecedents';
import { withDefaultLine, withDenial, withInstruction, withNamingLead } from './pass/lines';
import { ownWordsFirst, withListNames, withNamedDefinition } from './pass/names';
import type { QuestionPlan } from './plan';
import { withExample } from './strategies/code';
import type { Candidate, Context } from './types';

/** A rule applied to the units a strategy chose, when the question calls for it. */
export interface Pass {
  name: string;
  when(plan: QuestionPlan): boolean;
  apply(chosen: Candidate[], ctx: Context): Candidate[];
}

/**
 * Question types where a name the question uses is best introduced first. A definition or an
 * option question has its own lead (strategies/definition.ts), a comparison its two sides, and
 * troubleshooting opens with the cause, not with what the thing involved is.
 */
const NAME_FIRST = new Set<QuestionType>(['how-to', 'yes-no', 'other']);

const howToOrProblem = (plan: QuestionPlan): boolean =>
  plan.type === 'how-to' || plan.type === 'troubleshooting';

/**
 * The passes after the strategy, in the order they run; each sees what the one before returned.
 * An ablation switches one off by name (ExtractiveAnswerGeneratorOptions.disabled).
 */
export const PASSES = [
  { name: 'defaultLine', when: (plan) => plan.asksDefault, apply: withDefaultLine },
  { name: 'namingLead', when: (plan) => plan.type === 'how-to', apply: withNamingLead },
  { name: 'instruction', when: howToOrProblem, apply: withInstruction },
  { name: 'example', when: howToOrProblem, apply: withExample },
  { name: 'denial', when: (plan) => plan.type === 'yes-no', apply: withDenial },
  { name: 'ownWordsFirst', when: (plan) => plan.hasContext, apply: ownWordsFirst },
  {
    // A follow-up opens with its own words instead.
    name: 'namedDefinition',
    when: (plan) => !plan.hasContext && (NAME_FIRST.has(plan.type) || plan.type === 'troubleshooting'),
    apply: (chosen, ctx) => withNamedDefinition(chosen, ctx, NAME_FIRST.has(ctx.plan.type) ? 0 : 1),
  },
  { name: 'antecedents', when: () => true, apply: withAntecedents },
  { name: 'listNames', when: () => true, apply: withListNames },
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
