/**
 * What the server under test says it is, read once at the start of a run
 * where it can be read without a server change: its model list
 * (`GET /v1/models`) and, when it exposes one, its version (`GET /version`,
 * as vLLM answers it). Recorded in the result (`server_identity`), carried by
 * `run.started`, shown on the run page and in Compare (docs/design.md#server-identity).
 */
import { Type, type Static } from 'typebox';

/** The most model ids kept (a server serving more is named by its first ones). */
export const MAX_IDENTITY_MODELS = 64;

export const ServerIdentitySchema = Type.Object({
  /** The ids of `GET /v1/models`, or null when it could not be read. */
  models: Type.Union([Type.Array(Type.String({ maxLength: 256 }), { maxItems: MAX_IDENTITY_MODELS }), Type.Null()]),
  /** `GET /version`'s `version`, or null (not exposed, or not readable). */
  version: Type.Union([Type.String({ maxLength: 256 }), Type.Null()]),
  /** Why a part is missing, one line each (`/version: HTTP 404`). */
  notes: Type.Array(Type.String({ maxLength: 512 }), { maxItems: 4 }),
});
export type ServerIdentity = Static<typeof ServerIdentitySchema>;

/** One line for people: `model a, b · version 0.9.1`, or what could not be read. */
export function identityText(id: ServerIdentity | null | undefined): string {
  if (!id) return 'not read';
  const parts: string[] = [];
  if (id.models) parts.push(id.models.length ? `model ${id.models.join(', ')}` : 'no models listed');
  if (id.version) parts.push(`version ${id.version}`);
  return parts.length ? parts.join(' · ') : `not readable (${id.notes.join('; ')})`;
}

/**
 * The requested model when the server's own list (`GET /v1/models`) does not name it — vLLM answers such requests
 * 404 "Not Found" — as one warning for the run page and the verdict reasons; null when it is listed, or when the list
 * could not be read or is empty (nothing to compare with).
 */
export function modelMismatch(
  id: ServerIdentity | null | undefined,
  requested: string | null | undefined,
): string | null {
  if (!id?.models || id.models.length === 0 || !requested || id.models.includes(requested)) return null;
  const shown = id.models.slice(0, 3).join(', ') + (id.models.length > 3 ? `, … (${id.models.length})` : '');
  return `model mismatch: the run requested ${requested}, but the server's /v1/models lists ${shown}`;
}
