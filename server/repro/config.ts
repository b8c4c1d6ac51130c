/**
 * Options of the reproduction server, their defaults and validation, and the
 * watchdog setting's precedence: `--watchdog-timeout-s` > config file >
 * VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S; 0 or unset = off; an invalid value
 * refuses to start with a message naming where it came from.
 */
import { StallscopeError } from '../../shared/errors.ts';
import type { TelemetryEvent } from '../../shared/protocol/telemetry.ts';
import { normalizeFaults, type FaultSpec } from './code2wav/faults.ts';

export const WATCHDOG_ENV = 'VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S';
export const DEFAULT_MODEL = 'openbmb/MiniCPM-o-4_5';

export interface TelemetryOptions {
  /** POST NDJSON batches here (used verbatim). */
  url?: string;
  /** Sent with each batch as `x-stallscope-token` (from $STALLSCOPE_TELEMETRY_TOKEN). */
  token?: string;
  /** NDJSON lines to this file; '-' means stdout. */
  file?: string;
  /** NDJSON lines to stdout. */
  stdout?: boolean;
  maxQueue?: number;
  flushIntervalMs?: number;
}

export interface ReproServerOptions {
  port?: number;
  model?: string;
  /** Code2Wav worker threads (stage replicas); default 1, the single owner thread. */
  workers?: number;
  maxBatch?: number;
  /** Thinker text tokens per second. */
  tokenRate?: number;
  /** Talker codec codes per text token (25 codes = 1 s of audio). */
  codesPerToken?: number;
  /** Text tokens when the request sets no max_tokens and the prompt is empty. */
  defaultMaxTokens?: number;
  cfmSteps?: number;
  cfg?: boolean;
  cfgRate?: number;
  mode?: 'eager' | 'whole_euler';
  faults?: Array<FaultSpec | string>;
  seed?: number;
  /** Watchdog timeout in seconds; 0 = off; undefined = from the environment. */
  watchdogTimeoutS?: number;
  telemetry?: TelemetryOptions;
  onTelemetry?: (e: TelemetryEvent) => void;
  /** Where stall reports are logged as readable blocks; default stderr. */
  log?: (text: string) => void;
  /** Environment consulted for the watchdog default; default process.env. */
  env?: Record<string, string | undefined>;
}

export interface ResolvedOptions {
  model: string;
  workers: number;
  maxBatch: number;
  tokenRate: number;
  codesPerToken: number;
  defaultMaxTokens: number;
  cfmSteps: number;
  cfg: boolean;
  cfgRate: number;
  mode: 'eager' | 'whole_euler';
  faults: FaultSpec[];
  seed: number;
  watchdogTimeoutS: number;
  watchdogSource: string;
  telemetry: TelemetryOptions;
}

/** Parses a watchdog timeout from `source` (a flag, a config file, the environment). */
export function parseWatchdogTimeout(raw: unknown, source: string): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) {
    throw new StallscopeError(
      'CONFIG_WATCHDOG_INVALID',
      `${source}: ${JSON.stringify(raw)} is not a number of seconds ≥ 0`,
      'watchdogTimeoutS',
    );
  }
  return n;
}

function check(ok: boolean, field: string, why: string): void {
  if (!ok) throw new StallscopeError('CONFIG_INVALID', `${field} ${why}`, field);
}

const int = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;

export function resolveOptions(o: ReproServerOptions): ResolvedOptions {
  const env = o.env ?? process.env;
  let watchdogTimeoutS = 0;
  let watchdogSource = 'default (off)';
  if (o.watchdogTimeoutS !== undefined) {
    watchdogTimeoutS = parseWatchdogTimeout(o.watchdogTimeoutS, 'watchdogTimeoutS option');
    watchdogSource = 'option';
  } else if (env[WATCHDOG_ENV] !== undefined && env[WATCHDOG_ENV] !== '') {
    watchdogTimeoutS = parseWatchdogTimeout(env[WATCHDOG_ENV], `environment variable ${WATCHDOG_ENV}`);
    watchdogSource = `environment variable ${WATCHDOG_ENV}`;
  }
  const r: ResolvedOptions = {
    model: o.model ?? DEFAULT_MODEL,
    workers: o.workers ?? 1,
    maxBatch: o.maxBatch ?? 4,
    tokenRate: o.tokenRate ?? 200,
    codesPerToken: o.codesPerToken ?? 5,
    defaultMaxTokens: o.defaultMaxTokens ?? 32,
    cfmSteps: o.cfmSteps ?? 10,
    cfg: o.cfg ?? true,
    cfgRate: o.cfgRate ?? 0.7,
    mode: o.mode ?? 'eager',
    faults: normalizeFaults(o.faults),
    seed: o.seed ?? 0,
    watchdogTimeoutS,
    watchdogSource,
    telemetry: o.telemetry ?? {},
  };
  check(int(r.workers, 1, 32), 'workers', 'must be an integer in [1, 32]');
  check(int(r.maxBatch, 1, 64), 'maxBatch', 'must be an integer in [1, 64]');
  check(Number.isFinite(r.tokenRate) && r.tokenRate > 0, 'tokenRate', 'must be > 0');
  check(Number.isFinite(r.codesPerToken) && r.codesPerToken >= 0, 'codesPerToken', 'must be ≥ 0');
  check(int(r.defaultMaxTokens, 1, 1_000_000), 'defaultMaxTokens', 'must be a positive integer');
  check(int(r.cfmSteps, 1, 1000), 'cfmSteps', 'must be an integer in [1, 1000]');
  check(Number.isFinite(r.cfgRate) && r.cfgRate >= 0, 'cfgRate', 'must be ≥ 0');
  check(r.mode === 'eager' || r.mode === 'whole_euler', 'mode', "must be 'eager' or 'whole_euler'");
  check(Number.isInteger(r.seed), 'seed', 'must be an integer');
  return r;
}
