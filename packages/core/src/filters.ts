import { KbqaError } from './errors';

/**
 * The `where` operators. `$ne` and `$nin` also match a document without the field (it holds no
 * value equal to, or in, the given ones), as in MongoDB; every other operator needs the field.
 */
export const FILTER_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export type FilterScalar = string | number;

/** One parsed condition of a `where` object; conditions are combined with AND. */
export interface MetadataCondition {
  field: string;
  op: FilterOperator;
  value: FilterScalar | FilterScalar[];
}

/** Most values one `$in` or `$nin` list may hold (SQLite binds each as a variable; it allows 32,766 in all). */
export const MAX_IN_VALUES = 1000;
/** Most fields one `where` object may name, so the total of bound values stays far under SQLite's limit. */
export const MAX_WHERE_FIELDS = 16;

const NUMERIC_ONLY = new Set<FilterOperator>(['$gt', '$gte', '$lt', '$lte']);
const FIELD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Parses and validates the chat `where` object (SPEC.md: one operator per field, no and/or).
 * Throws `KbqaError('BAD_REQUEST')` naming the problem.
 */
export function parseWhere(where: unknown): MetadataCondition[] {
  if (where === undefined || where === null) return [];
  if (typeof where !== 'object' || Array.isArray(where)) {
    throw new KbqaError('BAD_REQUEST', 'where must be an object of {field: {operator: value}}');
  }
  const fields = Object.entries(where as Record<string, unknown>);
  if (fields.length > MAX_WHERE_FIELDS) {
    throw new KbqaError('BAD_REQUEST', `where may name at most ${MAX_WHERE_FIELDS} fields`);
  }
  const conditions: MetadataCondition[] = [];
  for (const [field, spec] of fields) {
    if (field === '$and' || field === '$or' || field === '$not') {
      throw new KbqaError('BAD_REQUEST', `where: ${field} combinations are not supported`);
    }
    if (!FIELD_NAME.test(field)) throw new KbqaError('BAD_REQUEST', `where: invalid field name "${field}"`);
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
      throw new KbqaError(
        'BAD_REQUEST',
        `where.${field} must be an object with one operator, like {"$eq": 1}`,
      );
    }
    const entries = Object.entries(spec as Record<string, unknown>);
    if (entries.length !== 1) {
      throw new KbqaError('BAD_REQUEST', `where.${field} must have exactly one operator`);
    }
    const [op, value] = entries[0] ?? ['', undefined];
    if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
      throw new KbqaError(
        'BAD_REQUEST',
        `where.${field}: unknown operator "${op}" (allowed: ${FILTER_OPERATORS.join(', ')})`,
      );
    }
    const operator = op as FilterOperator;
    if (operator === '$in' || operator === '$nin') {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) {
        throw new KbqaError(
          'BAD_REQUEST',
          `where.${field}.${operator} must be a non-empty array of strings or numbers`,
        );
      }
      if (value.length > MAX_IN_VALUES) {
        throw new KbqaError(
          'BAD_REQUEST',
          `where.${field}.${operator} may hold at most ${MAX_IN_VALUES} values (got ${value.length})`,
        );
      }
      conditions.push({ field, op: operator, value });
    } else if (NUMERIC_ONLY.has(operator)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new KbqaError('BAD_REQUEST', `where.${field}.${operator} must be a number`);
      }
      conditions.push({ field, op: operator, value });
    } else {
      if (!isScalar(value))
        throw new KbqaError('BAD_REQUEST', `where.${field}.${operator} must be a string or number`);
      conditions.push({ field, op: operator, value });
    }
  }
  return conditions;
}

function isScalar(value: unknown): value is FilterScalar {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
