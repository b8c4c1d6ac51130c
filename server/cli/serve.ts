/**
 * `stallscope serve`: the dashboard (REST, /ws, web UI, embedded repro server).
 * The only place that listens; server/dashboard/app.ts builds. Stops cleanly on
 * SIGINT/SIGTERM: live runs are recorded as interrupted, the store flushed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../dashboard/app.ts';
import { StallscopeError } from '../../shared/errors.ts';
import { DEFAULT_DASHBOARD_PORT } from '../../shared/protocol/dashboardPort.ts';
import { defaultDataDir } from '../dashboard/store/sqlite/db.ts';
import { lockDataDir, type DataDirLock } from '../dashboard/store/sqlite/dataDirLock.ts';
import { isLoopback } from '../dashboard/plugins/security.ts';
import { redactDbUrl } from '../dashboard/store/pg/dbUrl.ts';
import type { RetentionPolicy } from '../dashboard/store/common/retention.ts';
import { buildWeb, webBuildNeeded, WEB_OUT } from './webBuild.ts';
import { maskProcessOutput } from './outputRedaction.ts';

const USAGE = `usage: stallscope serve [options]

  --port N             port to listen on (default ${DEFAULT_DASHBOARD_PORT}; 0 = any free port)
  --host ADDR          address to bind (default 127.0.0.1); a non-loopback
                       address requires a token
  --data-dir DIR       where runs are stored (default $XDG_DATA_HOME/stallscope
                       or ~/.local/share/stallscope)
  --database URL       store runs in PostgreSQL instead (postgres://user:pass@
                       host:5432/db; default $STALLSCOPE_DATABASE_URL): a team
                       dashboard, which several processes may serve at once
  --buffer-events N    with --database: events kept while the database is
                       unreachable (default 200000); past them, reports get 503
  --token T            the admin token (default: $STALLSCOPE_TOKEN; generated and
                       printed when binding a non-loopback address; a given one
                       is never printed); with one, every route but
                       /api/health needs a token: this one or a scoped one
                       from 'stallscope token create'
  --retain-days N      prune the request rows and events of runs older than N
                       days (summary, result, verdict, metadata and stall
                       evidence are kept; pinned runs are never pruned)
  --retain-runs N      keep the request rows and events of the newest N runs
                       only (same rule)
  --allowed-host NAME  also accept this name in Host/Origin (repeatable)
  --build-if-needed    build the web UI (vite build) when dist/web is missing
                       or older than web/
  --verbose            log run lifecycle and target output to stderr`;

/** A refusal to start: one line, no stack (a stack only for what we did not foresee). */
function refuse(e: unknown): number {
  if (e instanceof StallscopeError) {
    console.error(`stallscope serve: ${e.message}`);
    return e.exitCode;
  }
  const err = e as NodeJS.ErrnoException;
  console.error(`stallscope serve: ${err.code ? `${err.code}: ` : ''}${err.message ?? String(e)}`);
  return 1;
}

function buildWebOrSay(): void {
  console.log('stallscope: building the web UI (vite build)...');
  if (!buildWeb().ok) console.error('stallscope: the web UI build failed; serving the API and WebSocket only');
}

/** The token to enforce: the given one; a generated one when binding a non-loopback address; else none. */
export function resolveToken(host: string, given: string | undefined): { token: string | null; generated: boolean } {
  if (given) return { token: given, generated: false };
  if (isLoopback(host)) return { token: null, generated: false };
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * The listening line. A token serve generated is printed in the URL (there is no other way to learn it); a given
 * one never is (it was given through a flag or the environment to keep it out of logs): the line says where it is.
 */
export function listeningLine(url: string, token: string | null, generated: boolean, fromFlag: boolean): string {
  const line = `stallscope dashboard listening on ${url}`;
  if (!token) return line;
  if (generated) return `${line}/?token=${token}`;
  return `${line} (a token is required: the one given ${fromFlag ? 'with --token' : 'in $STALLSCOPE_TOKEN'})`;
}

/** A flag's positive integer; undefined when absent, null when it is not one. */
function positiveOrUndefined(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

type FolderLock = Pick<DataDirLock, 'release' | 'setAddress'>;

/**
 * The data folder's lock; with PostgreSQL there is no folder to lock: several dashboards may serve one
 * database (owner locks in it keep a starting one from marking another's live runs interrupted).
 */
function lockFor(database: string | null, dataDir: string): FolderLock {
  if (database) return { release: () => undefined, setAddress: () => undefined };
  mkdirSync(dataDir, { recursive: true });
  return lockDataDir(dataDir);
}

/** `--retain-days` / `--retain-runs`: each a positive integer, or absent (no limit). */
export function retentionPolicy(days: string | undefined, runs: string | undefined): RetentionPolicy {
  const int = (flag: string, v: string | undefined): number | null => {
    if (v === undefined) return null;
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1)
      throw new Error(`--${flag} must be a positive integer (got '${v}')`);
    return n;
  };
  return { retainDays: int('retain-days', days), retainRuns: int('retain-runs', runs) };
}

const OPTIONS = {
  port: { type: 'string', default: String(DEFAULT_DASHBOARD_PORT) },
  host: { type: 'string', default: '127.0.0.1' },
  'data-dir': { type: 'string' },
  database: { type: 'string' },
  'buffer-events': { type: 'string' },
  token: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'retain-days': { type: 'string' },
  'retain-runs': { type: 'string' },
  'build-if-needed': { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type ServeArgs = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>['values'];

/** The flags read and checked; an exit code when they refuse (2) or asked for help (0). */
function readFlags(
  argv: string[],
): { args: ServeArgs; port: number; policy: RetentionPolicy; bufferEvents: number | undefined } | number {
  let args: ServeArgs;
  try {
    args = parseArgs({ args: argv, options: OPTIONS }).values;
  } catch (e) {
    console.error(`stallscope serve: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`stallscope serve: --port must be an integer 0-65535 (got '${args.port}')`);
    return 2;
  }
  const bufferEvents = positiveOrUndefined(args['buffer-events']);
  if (bufferEvents === null) {
    console.error(`stallscope serve: --buffer-events must be a positive integer (got '${args['buffer-events']}')`);
    return 2;
  }
  try {
    return { args, port, bufferEvents, policy: retentionPolicy(args['retain-days'], args['retain-runs']) };
  } catch (e) {
    console.error(`stallscope serve: ${(e as Error).message}`);
    return 2;
  }
}

export async function run(argv: string[]): Promise<number> {
  const flags = readFlags(argv);
  if (typeof flags === 'number') return flags;
  // From here on nothing this process prints shows a password or a token, but the token it generates (below).
  const unmasked = maskProcessOutput();
  const { args, port, policy, bufferEvents } = flags;
  const host = args.host;
  const database = args.database ?? process.env.STALLSCOPE_DATABASE_URL ?? null;
  const { token, generated } = resolveToken(host, args.token ?? process.env.STALLSCOPE_TOKEN);
  if (generated) unmasked.stdout(`stallscope: bound to ${host}, so a token is required; generated one: ${token}\n`);
  if (args['build-if-needed'] && webBuildNeeded()) buildWebOrSay();
  const dataDir = args['data-dir'] ?? defaultDataDir();
  const verbose = args.verbose;
  // The lock comes first: opening the store marks runs left `running` as interrupted, which must
  // never happen to the live runs of another dashboard on the same directory.
  let lock: FolderLock;
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    lock = lockFor(database, dataDir);
  } catch (e) {
    return refuse(e);
  }
  process.once('exit', () => lock.release());
  try {
    app = await buildApp({
      dataDir,
      database,
      store: { bufferEvents },
      host,
      port,
      token,
      allowedHosts: args['allowed-host'],
      retention: { policy },
      webRoot: WEB_OUT,
      warmBoard: true,
      manager: verbose ? { log: (l) => process.stderr.write(`${l}\n`) } : {},
    });
  } catch (e) {
    lock.release();
    return refuse(e);
  }
  // Signals are handled from here on, so a SIGTERM while starting also stops cleanly (and releases the lock).
  let stopping: Promise<number> | null = null;
  const stop = (sig: string): Promise<number> => {
    stopping ??= (async () => {
      console.log(`stallscope: ${sig}, stopping (live runs are recorded as interrupted)`);
      const code = await app.close().then(
        () => 0,
        () => 1,
      );
      lock.release();
      // Whatever is still winding down (an aborted engine, a target's last flush) is recorded already; do not wait for it.
      setTimeout(() => process.exit(code), 200).unref();
      return code;
    })();
    return stopping;
  };
  const stopped = new Promise<number>((resolve) => {
    process.on('SIGINT', () => void stop('SIGINT').then(resolve));
    process.on('SIGTERM', () => void stop('SIGTERM').then(resolve));
  });
  try {
    await app.listen({ host, port });
  } catch (e) {
    if (stopping) return stopping;
    console.error(`stallscope serve: cannot listen on ${host}:${port}: ${(e as Error).message}`);
    await app.close();
    lock.release();
    return 1;
  }
  const addr = app.server.address();
  const actual = addr && typeof addr === 'object' ? addr.port : port;
  lock.setAddress(host, actual);
  const shown = host.includes(':') ? `[${host}]` : host;
  const listening = listeningLine(`http://${shown}:${actual}`, token, generated, args.token !== undefined);
  (generated ? unmasked.stdout : (l: string) => process.stdout.write(l))(`${listening}\n`);
  console.log(
    `stallscope: data in ${database ? redactDbUrl(database) : dataDir}${existsSync(join(WEB_OUT, 'index.html')) ? '' : ' (web UI not built: run npm run build)'}`,
  );
  const kept = [
    policy.retainDays !== null ? `runs of the last ${policy.retainDays} day(s)` : null,
    policy.retainRuns !== null ? `the newest ${policy.retainRuns} run(s)` : null,
  ].filter(Boolean);
  if (kept.length)
    console.log(`stallscope: retention keeps request rows and events of ${kept.join(' and ')}, and pinned runs`);
  return stopped;
}
