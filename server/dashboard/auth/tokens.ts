/**
 * Scoped tokens (docs/design.md#tokens): minted here from 32 random bytes,
 * shown once, stored as their SHA-256. A plain (fast, unsalted) hash is
 * enough because the token is not a password: 256 random bits cannot be
 * guessed from a leaked hash however fast the hash, so a slow salted KDF
 * (bcrypt, scrypt) would only cost CPU on every request, and a deterministic
 * hash lets the store find the token by an index. The dashboard's own token
 * (`--token`, `$STALLSCOPE_TOKEN`, or the one generated off loopback) is an
 * admin token that is never stored.
 *
 * Tokens seen authenticated are cached in the process (a hash, its id and
 * scope): a check is answered from the cache for `RECHECK_MS`, then asked of
 * the database again — so a token revoked through another process stops
 * within that bound (at once on the process that revoked it) — and from the
 * cache whatever its age while the database cannot be reached, so the outage
 * buffer serves every token it accepted before the outage. A token the
 * process has not seen is 503 then (the database must say), never 401.
 */
import { createHash, randomBytes } from 'node:crypto';
import { StallscopeError } from '../../../shared/errors.ts';
import { isStoreUnavailable } from '../store/common/connectionError.ts';
import type { TokenInfo, TokenScope } from '../../../shared/protocol/tokens.ts';
import { tokenMatches } from './compare.ts';
import type { TokenMatch, TokenStore } from '../store/common/tokens.ts';

/** Who a request is: its scope, and the stored token's id (null for the dashboard's own token, or no auth at all). */
export interface Caller {
  scope: TokenScope;
  tokenId: string | null;
}

/** `last_used_at_ms` is written at most this often per token: not a write per posted batch. */
const TOUCH_EVERY_MS = 60_000;
/** A cached token is asked of the database again after this (docs/design.md#tokens: a revocation's bound). */
export const RECHECK_MS = 5000;
/** Tokens and run owners remembered, each: a fleet has tens of pipelines, not thousands. */
const CACHE_MAX = 10_000;

/** A Map that forgets its oldest entry past `max` (insertion order; a refreshed entry moves to the end). */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(k: K, v: V): this {
    super.delete(k);
    super.set(k, v);
    if (this.size > this.max) super.delete(this.keys().next().value as K);
    return this;
  }
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** `sst_<scope>_` + 43 base64url characters (256 bits): the prefix lets secret scanners and people recognise it. */
export function mintToken(scope: TokenScope): { token: string; hash: string; prefix: string } {
  const token = `sst_${scope}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token), prefix: token.slice(0, `sst_${scope}_`.length + 4) };
}

export class TokenService {
  private readonly touched = new Map<string, number>();
  private readonly revokeListeners = new Map<string, Set<() => void>>();
  /** Tokens seen authenticated, by hash: the match and when the database last said it. */
  private readonly seen = new BoundedMap<string, { match: TokenMatch; atMs: number }>(CACHE_MAX);
  /** The report token that created each run, as last read or recorded here (null: none did). */
  private readonly reporters = new BoundedMap<string, string | null>(CACHE_MAX);

  constructor(
    private readonly store: TokenStore,
    /** The dashboard's own admin token; null = no token is required (a loopback dashboard without --token). */
    readonly adminToken: string | null,
    private readonly now: () => number = Date.now,
  ) {}

  get required(): boolean {
    return this.adminToken !== null;
  }

  /** The caller a presented token makes, or the refusal (missing, unknown or revoked: 401). */
  async authenticate(presented: string | undefined): Promise<Caller> {
    if (this.adminToken === null) return { scope: 'admin', tokenId: null };
    if (presented === undefined || presented === '') throw new StallscopeError('API_UNAUTHORIZED');
    if (tokenMatches(presented, this.adminToken)) return { scope: 'admin', tokenId: null };
    // Found by its hash: a timing difference in the lookup says something about the hash, nothing about the token.
    const m = await this.lookUp(hashToken(presented));
    if (!m) throw new StallscopeError('API_UNAUTHORIZED');
    if (m.revokedAtMs !== null) throw new StallscopeError('API_UNAUTHORIZED', 'the token was revoked');
    this.touch(m.id);
    return { scope: m.scope, tokenId: m.id };
  }

  /** The stored token a hash finds: from the cache while fresh, or while the database cannot say. */
  private async lookUp(hash: string): Promise<TokenMatch | null> {
    const cached = this.seen.get(hash);
    if (cached && this.now() - cached.atMs < RECHECK_MS) return cached.match;
    let m: TokenMatch | null;
    try {
      m = await this.store.byHash(hash);
    } catch (e) {
      if (!isStoreUnavailable(e)) throw e;
      if (cached) return cached.match;
      throw new StallscopeError('STORE_UNAVAILABLE', 'the token cannot be checked while the database is unreachable');
    }
    if (m && m.revokedAtMs === null) this.seen.set(hash, { match: m, atMs: this.now() });
    else this.seen.delete(hash);
    return m;
  }

  private touch(id: string): void {
    const at = this.now();
    if (at - (this.touched.get(id) ?? -Infinity) < TOUCH_EVERY_MS) return;
    this.touched.set(id, at);
    // Bookkeeping only: a failed write must not fail the request it rides on.
    this.store.touch(id, at).catch(() => this.touched.delete(id));
  }

  async create(name: string, scope: TokenScope): Promise<{ token: string; info: TokenInfo }> {
    const minted = mintToken(scope);
    const id = `tok_${randomBytes(6).toString('hex')}`;
    const createdAtMs = this.now();
    const ok = await this.store.create({ id, name, scope, hash: minted.hash, prefix: minted.prefix, createdAtMs });
    if (!ok) throw new StallscopeError('API_CONFLICT', `a token named '${name}' exists; revoke it first`);
    const info: TokenInfo = {
      id,
      name,
      scope,
      prefix: minted.prefix,
      createdAtMs,
      lastUsedAtMs: null,
      revokedAtMs: null,
    };
    return { token: minted.token, info };
  }

  list(): Promise<TokenInfo[]> {
    return this.store.list();
  }

  /** Revokes a token: refused from the next request on, and its open live streams are closed now. */
  async revoke(id: string): Promise<TokenInfo> {
    const info = await this.store.revoke(id, this.now());
    if (!info) throw new StallscopeError('API_NOT_FOUND', `token ${id}`);
    for (const [hash, { match }] of this.seen) if (match.id === id) this.seen.delete(hash);
    for (const close of this.revokeListeners.get(id) ?? []) close();
    this.revokeListeners.delete(id);
    return info;
  }

  /** Remembers that a report token created this run: only that token may feed it. */
  async recordReporter(runId: string, caller: Caller | undefined): Promise<void> {
    if (caller?.scope === 'report' && caller.tokenId !== null) {
      await this.store.setRunReporter(runId, caller.tokenId);
      this.reporters.set(runId, caller.tokenId);
    }
  }

  /**
   * A report token feeds only the runs it created (one pipeline's token cannot write into another's runs): refused
   * with 403 otherwise. A run that does not exist is left to the route (its 404).
   */
  async checkReporter(runId: string, caller: Caller): Promise<void> {
    if (caller.scope !== 'report') return;
    const owner = await this.runReporter(runId);
    if (owner !== undefined && owner !== caller.tokenId)
      throw new StallscopeError('API_FORBIDDEN_SCOPE', `run ${runId} was not created with this report token`);
  }

  /**
   * The database's answer while it answers (a run deleted and made again by another token must not keep its old
   * owner here); what this process last read or recorded while it does not; 503 for a run it knows nothing of.
   */
  private async runReporter(runId: string): Promise<string | null | undefined> {
    try {
      const owner = await this.store.runReporter(runId);
      if (owner === undefined) this.reporters.delete(runId);
      else this.reporters.set(runId, owner);
      return owner;
    } catch (e) {
      if (!isStoreUnavailable(e)) throw e;
      const known = this.reporters.get(runId);
      if (known !== undefined) return known;
      throw new StallscopeError(
        'STORE_UNAVAILABLE',
        `run ${runId}'s reporter cannot be checked while the database is unreachable`,
      );
    }
  }

  /** Calls `close` when the token is revoked (a live stream it opened); returns the unsubscribe. */
  onRevoke(id: string, close: () => void): () => void {
    const set = this.revokeListeners.get(id) ?? new Set();
    set.add(close);
    this.revokeListeners.set(id, set);
    return () => {
      set.delete(close);
      if (set.size === 0) this.revokeListeners.delete(id);
    };
  }
}
