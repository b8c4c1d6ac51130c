/** Query parameters shared by the list routes: metadata pairs and a time window. */
import { Type } from 'typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import { MAX_EPOCH_MS } from '../../../shared/storage/storable.ts';

/** `key=value`, repeatable; all must match. */
export const MetadataParam = Type.Optional(
  Type.Union([Type.String({ maxLength: 600 }), Type.Array(Type.String({ maxLength: 600 }), { maxItems: 20 })]),
);
/** Epoch ms, or a date as `Date.parse` reads it (`2026-04-01`, `2026-04-01T18:00:00Z`). */
export const TimeParam = Type.Optional(Type.String({ minLength: 1, maxLength: 40 }));

export function metadataPairs(m: string | string[] | undefined): [string, string][] {
  const list = m === undefined ? [] : Array.isArray(m) ? m : [m];
  return list.map((kv) => {
    const i = kv.indexOf('=');
    if (i <= 0) throw new StallscopeError('API_BAD_REQUEST', `metadata filter '${kv}' is not key=value`, 'metadata');
    return [kv.slice(0, i), kv.slice(i + 1)];
  });
}

/**
 * A time parameter as epoch ms (undefined when absent); a value that is neither, or beyond the dates a
 * JavaScript date holds (compared with a BIGINT column, `since=1e22` failed PostgreSQL's query), refuses the request.
 */
export function timeParam(v: string | undefined, field: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms))
    throw new StallscopeError(
      'API_BAD_REQUEST',
      `${field} '${v}' is neither epoch milliseconds nor a date such as 2026-04-01`,
      field,
    );
  if (Math.abs(ms) > MAX_EPOCH_MS)
    throw new StallscopeError('API_BAD_REQUEST', `${field} '${v}' is beyond ${MAX_EPOCH_MS} epoch milliseconds`, field);
  return ms;
}
