/**
 * Queries and transactions through the PostgreSQL store's pool: a connection
 * failure becomes STORE_UNAVAILABLE (503: retry later), and a transaction
 * hands a broken connection back to the pool as broken.
 */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { StallscopeError } from '../../../../shared/errors.ts';
import { isConnectionError } from '../common/connectionError.ts';
import type { OneRead } from '../common/metricsQueries.ts';
import type { StallscopeDb } from '../common/schema.ts';

/** Runs one query; rows back. */
export type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

/** A transaction on one pooled connection. */
export type Transaction = (fn: (c: pg.ClientBase) => Promise<void>) => Promise<void>;

const unavailable = (e: unknown) => new StallscopeError('STORE_UNAVAILABLE', (e as Error).message.split('\n')[0]);

export function poolQuery(pool: pg.Pool): Query {
  return async <T>(text: string, params?: unknown[]): Promise<T[]> => {
    try {
      return (await pool.query(text, params)).rows as T[];
    } catch (e) {
      if (isConnectionError(e)) throw unavailable(e);
      throw e;
    }
  };
}

export function poolTransaction(pool: pg.Pool): Transaction {
  return async (fn) => {
    let c: pg.PoolClient;
    try {
      c = await pool.connect();
    } catch (e) {
      throw unavailable(e);
    }
    try {
      await c.query('BEGIN');
      await fn(c);
      await c.query('COMMIT');
      c.release();
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      c.release(isConnectionError(e) ? (e as Error) : undefined);
      if (isConnectionError(e)) throw unavailable(e);
      throw e;
    }
  };
}

/**
 * `read` in one read-only REPEATABLE READ transaction on one pooled connection: its statements see one snapshot
 * (the board's runs, a scrape's families), and it holds one connection however many statements it issues.
 */
export function readSnapshot(kysely: Kysely<StallscopeDb>): OneRead {
  return (read) => kysely.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}
