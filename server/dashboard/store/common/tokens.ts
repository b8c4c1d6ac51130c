/**
 * Scoped API tokens, stored hashed (docs/design.md#tokens): the table holds
 * each token's SHA-256, never the token. Written in Kysely for both stores.
 */
import type { TokenInfo, TokenScope } from '../../../../shared/protocol/tokens.ts';
import type { Kysely } from 'kysely';
import type { ApiTokensTable, StallscopeDb } from './schema.ts';

export interface NewToken {
  id: string;
  name: string;
  scope: TokenScope;
  hash: string;
  prefix: string;
  createdAtMs: number;
}

/** What a presented token's hash finds. */
export interface TokenMatch {
  id: string;
  scope: TokenScope;
  revokedAtMs: number | null;
}

export interface TokenStore {
  /** False when an unrevoked token already has this name. */
  create(t: NewToken): Promise<boolean>;
  list(): Promise<TokenInfo[]>;
  byHash(hash: string): Promise<TokenMatch | null>;
  /** The token as revoked now (or when it was), null when there is no such id. */
  revoke(id: string, nowMs: number): Promise<TokenInfo | null>;
  touch(id: string, nowMs: number): Promise<void>;
  /** Records the report token that created a run. */
  setRunReporter(runId: string, tokenId: string): Promise<void>;
  /** The report token that created a run: its id, null when none did, undefined when there is no such run. */
  runReporter(runId: string): Promise<string | null | undefined>;
}

/** A unique index refused the row: SQLite's extended code, PostgreSQL's SQLSTATE 23505. */
function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toInfo(r: ApiTokensTable): TokenInfo {
  return {
    id: r.id,
    name: r.name,
    scope: r.scope as TokenScope, // written only from a TokenScope
    prefix: r.prefix,
    createdAtMs: Number(r.created_at_ms),
    lastUsedAtMs: num(r.last_used_at_ms),
    revokedAtMs: num(r.revoked_at_ms),
  };
}

export class KyselyTokenStore implements TokenStore {
  constructor(private readonly db: Kysely<StallscopeDb>) {}

  /**
   * One statement, no transaction: a name already taken is refused by the unique index on unrevoked names. (On
   * SQLite this Kysely shares the batched writer's connection, and a transaction held open across awaits would take
   * in whatever batch the writer commits meanwhile — and roll it back with its own failure.)
   */
  async create(t: NewToken): Promise<boolean> {
    try {
      await this.db
        .insertInto('api_tokens')
        .values({
          id: t.id,
          name: t.name,
          scope: t.scope,
          token_hash: t.hash,
          prefix: t.prefix,
          created_at_ms: t.createdAtMs,
          last_used_at_ms: null,
          revoked_at_ms: null,
        })
        .execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async list(): Promise<TokenInfo[]> {
    const rows = await this.db.selectFrom('api_tokens').selectAll().orderBy('created_at_ms').orderBy('id').execute();
    return rows.map(toInfo);
  }

  async byHash(hash: string): Promise<TokenMatch | null> {
    const r = await this.db
      .selectFrom('api_tokens')
      .select(['id', 'scope', 'revoked_at_ms'])
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    return r ? { id: r.id, scope: r.scope as TokenScope, revokedAtMs: num(r.revoked_at_ms) } : null;
  }

  async revoke(id: string, nowMs: number): Promise<TokenInfo | null> {
    // The first revocation's time stays: revoking twice changes nothing.
    await this.db
      .updateTable('api_tokens')
      .set({ revoked_at_ms: nowMs })
      .where('id', '=', id)
      .where('revoked_at_ms', 'is', null)
      .execute();
    const r = await this.db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toInfo(r) : null;
  }

  async touch(id: string, nowMs: number): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at_ms: nowMs }).where('id', '=', id).execute();
  }

  async setRunReporter(runId: string, tokenId: string): Promise<void> {
    await this.db.updateTable('runs').set({ reported_by_token: tokenId }).where('id', '=', runId).execute();
  }

  async runReporter(runId: string): Promise<string | null | undefined> {
    const r = await this.db.selectFrom('runs').select('reported_by_token').where('id', '=', runId).executeTakeFirst();
    return r ? r.reported_by_token : undefined;
  }
}
