import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';

function describe(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push(message.replace(e.property, path));
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
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      new KbqaError('BAD_REQUEST', describe(errors).join('; ') || 'Invalid request'),
  });
}
