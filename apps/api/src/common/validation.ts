import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';

/** Type checks say the most about a wrong value, so they speak first; then the rest in order. */
const TYPE_CONSTRAINTS = ['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isIn'];

/**
 * One message per missing or wrong field: "question is required" rather than the three
 * constraints a missing string fails at once ("must be shorter than…; should not be empty; must
 * be a string").
 */
function describe(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const constraints = e.constraints ?? {};
    const names = Object.keys(constraints);
    if (names.length > 0) {
      if (e.value === undefined || e.value === null) {
        out.push(`${path} is required`);
      } else {
        const first = TYPE_CONSTRAINTS.find((n) => n in constraints) ?? names[0]!;
        out.push(constraints[first]!.replace(e.property, path));
      }
    }
    if (e.children?.length) out.push(...describe(e.children, path));
  }
  return out;
}

/** Whitelisting, unknown fields refused, no implicit type coercion: wrong types are a 400. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value tells a missing field from a wrong one; it never reaches the message.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) =>
      new KbqaError('BAD_REQUEST', describe(errors).join('; ') || 'Invalid request'),
  });
}
