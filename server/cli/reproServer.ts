/**
 * `stallscope repro-server`: runs the reproduction server until SIGTERM/SIGINT.
 * Prints exactly one line on stdout once listening:
 *   stallscope repro-server listening on http://127.0.0.1:PORT
 * Settings: flags > --config file > environment (watchdog only).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { StallscopeError } from '../../shared/errors.ts';
import { parseWatchdogTimeout, WATCHDOG_ENV, type ReproServerOptions } from '../repro/config.ts';
import { TELEMETRY_TOKEN_ENV } from '../../shared/protocol/telemetry.ts';
import { startReproServer } from '../repro/server.ts';

const USAGE = `usage: stallscope repro-server [options]

  --port N                  port on 127.0.0.1 (0 = any free port; default 0)
  --config FILE.json        settings file (keys as the flags in camelCase, faults as strings)
  --fault SPEC              repeatable: PHASE:KIND[:after=N][:p=P][:min-inflight=C][:ms=M]
                            phases setup|encoder|cfm|cache_materialization|hift|output_copy,
                            kinds block|spin|slow (e.g. --fault hift:block:after=5)
  --workers N               Code2Wav worker threads (default 1)
  --max-batch N             Code2Wav batch size (default 4)
  --cfm-steps N             Euler steps (default 10)      --mode eager|whole_euler
  --no-cfg                  disable classifier-free guidance
  --token-rate N            thinker tokens per second (default 200)
  --codes-per-token N       talker codes per text token (default 5; 25 codes = 1 s)
  --watchdog-timeout-s S    no-progress watchdog (0 = off; default: config, then ${WATCHDOG_ENV})
  --telemetry-url URL       POST NDJSON telemetry batches to URL (with the token
                            in $${TELEMETRY_TOKEN_ENV}, if set, as x-stallscope-token)
  --telemetry-file PATH|-   NDJSON telemetry lines to a file or stdout
  --seed N                  seed of the fault plan and the audio (default 0)
  --model NAME              served model name (default openbmb/MiniCPM-o-4_5)`;

function num(v: string | undefined, flag: string, integer = true): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new StallscopeError('CONFIG_INVALID', `${flag}: '${v}' is not ${integer ? 'an integer' : 'a number'}`, flag);
  }
  return n;
}

/** Keys a config file may hold: the options as they are, in camelCase. */
const CONFIG_KEYS = new Set([
  'port',
  'model',
  'workers',
  'maxBatch',
  'tokenRate',
  'codesPerToken',
  'defaultMaxTokens',
  'cfmSteps',
  'cfg',
  'cfgRate',
  'mode',
  'faults',
  'seed',
  'watchdogTimeoutS',
  'telemetry',
]);

/**
 * Accepts the flags' camelCase names too (`telemetryUrl`, `telemetryFile`,
 * `noCfg`), as the help text promises, and refuses any other key: a typo such
 * as `watchdogTimeout` would otherwise leave the opt-in watchdog silently off.
 */
function normalizeConfigKeys(raw: Record<string, unknown>, path: string): ReproServerOptions & { port?: number } {
  const out: Record<string, unknown> = {};
  const telemetry: Record<string, unknown> = { ...((raw.telemetry as Record<string, unknown> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'telemetryUrl') telemetry.url = value;
    else if (key === 'telemetryFile') telemetry.file = value;
    else if (key === 'noCfg') {
      if (value === true) out.cfg = false;
    } else if (CONFIG_KEYS.has(key)) {
      if (key !== 'telemetry') out[key] = value;
    } else
      throw new StallscopeError(
        'CONFIG_INVALID',
        `config file ${path}: unknown key '${key}' (keys are the flags in camelCase, e.g. watchdogTimeoutS, maxBatch, telemetryUrl)`,
        key,
      );
  }
  if (Object.keys(telemetry).length > 0) out.telemetry = telemetry;
  return out;
}

function readConfig(path: string): ReproServerOptions & { port?: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new StallscopeError('CONFIG_INVALID', `config file ${path}: ${(err as Error).message}`, 'config');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new StallscopeError('CONFIG_INVALID', `config file ${path}: not a JSON object`, 'config');
  const c = normalizeConfigKeys(parsed as Record<string, unknown>, path);
  if (c.watchdogTimeoutS !== undefined)
    c.watchdogTimeoutS = parseWatchdogTimeout(c.watchdogTimeoutS, `config file ${path} (watchdogTimeoutS)`);
  return c;
}

export function optionsFromArgv(argv: string[]): (ReproServerOptions & { port: number }) | null {
  const { values: f } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      config: { type: 'string' },
      fault: { type: 'string', multiple: true },
      workers: { type: 'string' },
      'max-batch': { type: 'string' },
      'cfm-steps': { type: 'string' },
      mode: { type: 'string' },
      'no-cfg': { type: 'boolean' },
      'token-rate': { type: 'string' },
      'codes-per-token': { type: 'string' },
      'watchdog-timeout-s': { type: 'string' },
      'telemetry-url': { type: 'string' },
      'telemetry-file': { type: 'string' },
      seed: { type: 'string' },
      model: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (f.help) return null;
  const file = f.config ? readConfig(f.config) : {};
  const pick = <T>(flag: T | undefined, fromFile: T | undefined) => (flag !== undefined ? flag : fromFile);
  const telemetry = { ...(file.telemetry ?? {}) };
  if (f['telemetry-url']) telemetry.url = f['telemetry-url'];
  if (f['telemetry-file']) telemetry.file = f['telemetry-file'];
  const token = process.env[TELEMETRY_TOKEN_ENV];
  if (token) telemetry.token = token;
  return {
    ...file,
    port: pick(num(f.port, '--port'), file.port) ?? 0,
    model: pick(f.model, file.model),
    workers: pick(num(f.workers, '--workers'), file.workers),
    maxBatch: pick(num(f['max-batch'], '--max-batch'), file.maxBatch),
    cfmSteps: pick(num(f['cfm-steps'], '--cfm-steps'), file.cfmSteps),
    mode: pick(f.mode as ReproServerOptions['mode'], file.mode),
    cfg: f['no-cfg'] ? false : file.cfg,
    tokenRate: pick(num(f['token-rate'], '--token-rate', false), file.tokenRate),
    codesPerToken: pick(num(f['codes-per-token'], '--codes-per-token', false), file.codesPerToken),
    seed: pick(num(f.seed, '--seed'), file.seed),
    faults: f.fault && f.fault.length > 0 ? f.fault : file.faults,
    watchdogTimeoutS:
      f['watchdog-timeout-s'] !== undefined
        ? parseWatchdogTimeout(f['watchdog-timeout-s'], '--watchdog-timeout-s')
        : file.watchdogTimeoutS,
    telemetry,
  };
}

export async function run(argv: string[]): Promise<number> {
  let opts: (ReproServerOptions & { port: number }) | null;
  let server: Awaited<ReturnType<typeof startReproServer>>;
  try {
    opts = optionsFromArgv(argv);
    if (!opts) {
      console.log(USAGE);
      return 0;
    }
    server = await startReproServer(opts);
  } catch (err) {
    const code = err instanceof StallscopeError ? err.exitCode : 2;
    console.error(`stallscope repro-server: ${(err as Error).message}`);
    return err instanceof StallscopeError ? code : 2;
  }
  process.stdout.write(`stallscope repro-server listening on ${server.url}\n`);
  return new Promise<number>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      // close() flushes telemetry and terminates the workers, hung ones included.
      server.close().then(
        () => resolve(0),
        (err) => {
          console.error(`stallscope repro-server: ${(err as Error).message}`);
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
