/**
 * Scoped API tokens of the dashboard (docs/design.md#tokens): what a scope
 * may do, and the REST bodies that manage tokens. A `report` token creates
 * runs and posts their events (one per CI pipeline); a `view` token reads;
 * an `admin` token does everything, managing tokens included.
 */
import { Type, type Static } from 'typebox';

export const TokenScopeSchema = Type.Union([Type.Literal('report'), Type.Literal('view'), Type.Literal('admin')]);
export type TokenScope = Static<typeof TokenScopeSchema>;

/** What a request needs: nothing (`/api/health`), or a token of a scope that covers it. */
export type Need = 'public' | TokenScope;

/** `admin` covers every need; `report` and `view` each cover only their own. */
export function scopeCovers(held: TokenScope, need: Need): boolean {
  return need === 'public' || held === 'admin' || held === need;
}

/** A token's name: a CI pipeline's, so letters, digits and `._:/@-`, as CI systems spell them. */
export const TokenNameSchema = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:/@-]+$' });

export const CreateTokenBodySchema = Type.Object({ name: TokenNameSchema, scope: TokenScopeSchema });
export type CreateTokenBody = Static<typeof CreateTokenBodySchema>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** A stored token as listed: never the token itself, only its first characters to recognise it by. */
export const TokenInfoSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: TokenScopeSchema,
  /** The token's first characters (its `sst_<scope>_` prefix and 4 more). */
  prefix: Type.String(),
  createdAtMs: Type.Integer(),
  /** When it was last accepted (updated at most once a minute); null if never. */
  lastUsedAtMs: Nullable(Type.Integer()),
  revokedAtMs: Nullable(Type.Integer()),
});
export type TokenInfo = Static<typeof TokenInfoSchema>;

/** The reply to a creation: the only time the token is ever shown. */
export const CreateTokenReplySchema = Type.Object({ token: Type.String(), info: TokenInfoSchema });
export type CreateTokenReply = Static<typeof CreateTokenReplySchema>;

export const TokenListReplySchema = Type.Object({ tokens: Type.Array(TokenInfoSchema) });
export type TokenListReply = Static<typeof TokenListReplySchema>;

/**
 * `GET /api/session`: the scope of the token the caller presented (admin when the dashboard requires none), so the
 * web UI offers only what that scope may do — a view token's page has no Start run, Pin or Delete that would 403.
 */
export const SessionReplySchema = Type.Object({
  scope: TokenScopeSchema,
  /** Whether the dashboard requires a token at all (false: loopback without `--token`, everyone is admin). */
  tokenRequired: Type.Boolean(),
});
export type SessionReply = Static<typeof SessionReplySchema>;

/** What a scope may do in the UI: start, cancel, abandon, pin and delete runs need admin; import needs report. */
export const scopeMay = {
  manageRuns: (s: TokenScope): boolean => scopeCovers(s, 'admin'),
  importResults: (s: TokenScope): boolean => scopeCovers(s, 'report'),
} as const;
