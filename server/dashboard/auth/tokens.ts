/**
 * Scoped tokens (docs/design.md#tokens): minted here from 32 random bytes,
 * shown once, stored as their SHA-256. A plain (fast, unsalted) hash is
 * enough because the token is not a password: 256 random bits cannot be
 * guessed from a leaked hash however fast the hash, so a slow salted KDF
 * (bcrypt, scrypt) would only cost CPU on every request, and a deterministic
 * hash lets the store find the token by an index. The dashboard's own token
 * (`--token`, `$STALLSCOPE_TOKEN`, or the one generated off loopback) is an
 * admin token that is never stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { StallscopeError } from '../../../shared/errors.ts';
import type { TokenInfo, TokenScope } from '../../../shared/protocol/tokens.ts';
import { tokenMatches } from './compare.ts';
import type { TokenStore } from '../store/common/tokens.ts';

/** Who a request is: its scope, and the stored token's id (null for the dashboard's own token, or no auth at all). */
export interface Caller {
  scope: TokenScope;
  tokenId: string | null;
}

/** `last_used_at_ms` is written at most this often per token: not a write per posted batch. */
const TOUCH_EVERY_MS = 60_000;

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** `sst_<scope>_` + 43 base64url characters (256 bits): the prefix lets secret scanners and people recognise it. */
export function mintToken(scope: TokenScope): { token: string; hash: string; prefix: string } {
  const token = `sst_${scope}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token), prefix: token.slice(0, `sst_${scope}_`.length + 4) };
}

export class TokenService {
  private readonly touched = new Map<string, number>();
  private readonly revokeListeners = new Map<string, Set<() => void>>();

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
    const m = await this.store.byHash(hashToken(presented));
    if (!m) throw new StallscopeError('API_UNAUTHORIZED');
    if (m.revokedAtMs !== null) throw new StallscopeError('API_UNAUTHORIZED', 'the token was revoked');
    this.touch(m.id);
    return { scope: m.scope, tokenId: m.id };
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
    for (const close of this.revokeListeners.get(id) ?? []) close();
    this.revokeListeners.delete(id);
    return info;
  }

  /** Remembers that a report token created this run: only that token may feed it. */
  async recordReporter(runId: string, caller: Caller | undefined): Promise<void> {
    if (caller?.scope === 'report' && caller.tokenId !== null) await this.store.setRunReporter(runId, caller.tokenId);
  }

  /**
   * A report token feeds only the runs it created (one pipeline's token cannot write into another's runs): refused
   * with 403 otherwise. A run that does not exist is left to the route (its 404).
   */
  async checkReporter(runId: string, caller: Caller): Promise<void> {
    if (caller.scope !== 'report') return;
    const owner = await this.store.runReporter(runId);
    if (owner !== undefined && owner !== caller.tokenId)
      throw new StallscopeError('API_FORBIDDEN_SCOPE', `run ${runId} was not created with this report token`);
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
