/**
 * A connection pool of undici's, loaded when first used: a plain `stallscope
 * bench` never initialises undici (its start, with its WebAssembly HTTP
 * parser compiled, cost every run ~0.3 s of CPU; docs/design.md#connections),
 * so what speaks HTTP through it only now and then (the reporter, the
 * recogniser's client) takes its pool from here.
 */
import type * as Undici from 'undici';

export interface LazyPool {
  /** undici and the pool's agent, loaded and made on the first call. */
  get(): Promise<{ undici: typeof Undici; agent: Undici.Agent }>;
  /** Closes the agent if one was made. */
  close(): Promise<void>;
}

export function lazyPool(options: Undici.Agent.Options): LazyPool {
  let pool: Promise<{ undici: typeof Undici; agent: Undici.Agent }> | null = null;
  return {
    get: () => (pool ??= import('undici').then((undici) => ({ undici, agent: new undici.Agent(options) }))),
    close: async () => {
      if (pool) await (await pool).agent.destroy();
    },
  };
}
