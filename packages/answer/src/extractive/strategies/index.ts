import type { Candidate, Context } from '../types';
import { compare } from './comparison';
import { define } from './definition';
import { relevant } from './relevant';
import { steps } from './steps';

/**
 * The units an answer is made of, by the strategy the question's type calls for: a definition's
 * or option's topic, a how-to's section, a comparison's sides; where that finds nothing, or for
 * other types, the general rule.
 */
export function choose(ctx: Context): Candidate[] {
  const { type, topic, sides } = ctx.plan;
  let chosen: Candidate[] | undefined;
  if ((type === 'definition' || type === 'option') && topic) chosen = define(ctx);
  else if (type === 'how-to') chosen = steps(ctx);
  else if (type === 'comparison' && sides) chosen = compare(ctx);
  return chosen ?? relevant(ctx);
}
