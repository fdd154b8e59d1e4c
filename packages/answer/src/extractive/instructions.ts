import { identifiers } from '../terms.util';
import type { Candidate } from './types';

/**
 * "To support other content types, use the `addContentTypeParser` API", "You should use
 * `reply.elapsedTime` instead": what to do, and with what. Migration notes address the reader
 * ("you should / can / must / need to …") where reference pages use the imperative.
 */
const INSTRUCTION =
  /^(?:to\s+\w+[^.]{0,80}?,\s*(?:use|call|set|add|register|pass|install|enable|specify|provide|configure|define)\b|(?:you\s+(?:should|can|must|need\s+to|have\s+to)\s+(?:instead\s+)?)?(?:use|call|set|add|register|pass|install|enable)\s|to\s+(?:make\s+(?:it|this)\s+work|fix\s+(?:it|this)|solve\s+(?:it|this)|avoid\s+(?:it|this)|work\s+around\s+(?:it|this)),)/i;

/**
 * A pointer to what changes the behaviour just described: "See the `prefixTrailingSlash` route
 * option above to change this behavior.", "This can be disabled with the `X` option". Pages close
 * a section that explains a surprise with it; it is the fix a problem report asks for.
 */
const REMEDY =
  /^(?:see|check|use)\b[^.]{0,80}?\bto\s+(?:change|alter|customi[sz]e|control|configure|disable|enable|override|avoid|turn\s+off)\s+(?:this|that|the|it)\b|\b(?:this|it|that|the\s+\w+)\s+(?:behaviou?r\s+)?(?:can|may)\s+be\s+(?:changed|configured|customi[sz]ed|disabled|enabled|overridden|controlled|turned\s+off)\s+(?:with|by|through|via|using)\b/i;

/** An instruction that names what to write: an API, or anything in inline code (`0.0.0.0`). */
export function instructsWithCode(c: Candidate): boolean {
  if (c.unit.kind !== 'sentence') return false;
  const plain = c.unit.text.replace(/[`*_]/g, '');
  if (!INSTRUCTION.test(plain) && !REMEDY.test(plain)) return false;
  return identifiers(c.unit.text).length > 0 || /`[^`\n]+`/.test(c.unit.text);
}
