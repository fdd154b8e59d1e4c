import { registerDecorator, type ValidationArguments } from 'class-validator';

/**
 * A conversation or message id as clients send it: an integer, a float with a zero fraction,
 * or a string of digits (SPEC.md shows all three in use).
 */
export function IsLooseId() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isLooseId',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => parseLooseId(value) !== undefined,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'id'} must be a positive integer (a number or a string of digits)`,
      },
    });
}

export function parseLooseId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value === 'string' && /^\s*[0-9]{1,15}(\.0+)?\s*$/.test(value)) {
    const n = Number(value);
    return n > 0 ? n : undefined;
  }
  return undefined;
}

/** Calendar day `YYYY-MM-DD` that exists. */
export function IsCalendarDay() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCalendarDay',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
          const d = new Date(`${value}T00:00:00Z`);
          return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
        },
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'date'} must be a date as YYYY-MM-DD`,
      },
    });
}

/**
 * A positive integer from a path or query string, strictly: digits only, no sign, exponent, hex
 * or spaces (`Number()` alone would take `0x1f` and ` 7`). Anything else stays as it came, for
 * the validators to refuse with the field's name.
 */
export function toPositiveInt({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) && Number.isSafeInteger(Number(value))
    ? Number(value)
    : value;
}
