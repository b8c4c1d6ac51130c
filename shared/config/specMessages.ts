/**
 * Schema errors in words people use. TypeBox says "must be >= 1", "must be
 * object" or, for a union such as the request rate, only the first branch's
 * complaint ("must be number", though `inf` is allowed); the form and the
 * server's 400 say "must be at least 1", "must be a JSON object" and "must be
 * a number above 0, or inf". The caller puts the field's label in front.
 */
import { count } from '../format.ts';

/** One schema error as TypeBox reports it (keyword and params), at one field. */
export interface SchemaError {
  keyword: string;
  params: Record<string, unknown>;
}

/**
 * Fields whose valid values one sentence says better than any single error
 * (unions, patterns). Keyed by dotted path; `*` matches a list index.
 */
const BY_FIELD: Record<string, string> = {
  requestRate: 'must be a number above 0, or inf',
  maxConcurrency: 'must be a whole number from 1 to 100,000, or empty for no limit',
  extraBody: 'must be a JSON object, e.g. {"modalities": ["text", "audio"]}',
  metadata: 'must be key=value lines',
  endpoint: 'must be a path starting with /, e.g. /v1/chat/completions',
  'target.baseUrl': 'must be an http:// or https:// URL without spaces, e.g. http://127.0.0.1:8000',
  'thresholds.*': 'must be a metric, a comparison and a number, e.g. mean_ttft_ms<500',
};

const num = (v: unknown) => (typeof v === 'number' ? count(v) : String(v));

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'on or off',
  object: 'a JSON object',
  array: 'a list',
  null: 'empty',
};

function oneError(e: SchemaError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'minimum':
    case 'exclusiveMinimum':
      return p.comparison === '>' || e.keyword === 'exclusiveMinimum'
        ? `must be more than ${num(p.limit)}`
        : `must be at least ${num(p.limit)}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return p.comparison === '<' || e.keyword === 'exclusiveMaximum'
        ? `must be less than ${num(p.limit)}`
        : `must be at most ${num(p.limit)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${num(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${num(p.limit)} characters long`;
    case 'maxItems':
      return `must have at most ${num(p.limit)} entries`;
    case 'minItems':
      return `must have at least ${num(p.limit)} entries`;
    case 'type':
      return `must be ${TYPE_WORDS[String(p.type)] ?? String(p.type)}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    case 'pattern':
      return 'is not in the expected form';
    default:
      return 'is not a valid value';
  }
}

/** The message for a field's schema errors (in TypeBox's order), without the label. */
export function schemaMessage(field: string, errors: readonly SchemaError[]): string {
  const key = field.replace(/\.\d+(?=\.|$)/g, '.*');
  if (BY_FIELD[key] && !errors.some((e) => e.keyword === 'required' || e.keyword === 'additionalProperties'))
    return BY_FIELD[key];
  // A union of constants (backend, a fault's phase): name the choices, not the first branch's "must be equal".
  const consts = errors.filter((e) => e.keyword === 'const').map((e) => String(e.params.allowedValue));
  if (consts.length > 1) return `must be one of ${consts.join(', ')}`;
  // An enum of constants (the backend names, from one list in shared/config/backends.ts): the same words.
  const choices = errors.find((e) => e.keyword === 'enum')?.params.allowedValues;
  if (Array.isArray(choices)) return `must be one of ${choices.map(String).join(', ')}`;
  const first = errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'boolean') ?? errors[0];
  return first ? oneError(first) : 'is not a valid value';
}
