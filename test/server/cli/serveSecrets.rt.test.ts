/**
 * `stallscope serve` as a child process prints no secret it was given: an
 * admin token from `--token` or `$STALLSCOPE_TOKEN` is not in its listening
 * line (which says where the token comes from), and a PostgreSQL password in
 * the URL (userinfo or `?password=`) is masked at start (a real PostgreSQL)
 * and in the error of a database it cannot reach. Before: `…/?token=<admin>`
 * was printed, and `?password=` shown as given in both.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuild } from '#test/helpers/ensureBuild.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { REPO_ROOT } from '#test/helpers/tools.ts';

const BIN = join(REPO_ROOT, 'bin', 'stallscope.js');

/** Runs serve until its listening line (then SIGTERM) or its exit; everything it printed, both streams. */
async function serve(args: string[], env: Record<string, string> = {}) {
  ensureBuild();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, STALLSCOPE_TOKEN: '', STALLSCOPE_DATABASE_URL: '', ...env },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const timer = setInterval(() => {
    if (!/listening on .*\n/.test(out)) return;
    clearInterval(timer);
    child.kill('SIGTERM');
  }, 20);
  const code = await exited;
  clearInterval(timer);
  return { code, out };
}

const dataDir = () => ['--data-dir', mkdtempSync(join(tmpdir(), 'stallscope-serve-secrets-'))];

describe('serve prints no token it was given', () => {
  it('--token: the listening line has no token and says where it comes from', async () => {
    const token = 'given-by-flag-5b7d';
    const { code, out } = await serve(['--token', token, ...dataDir()]);
    expect(code).toBe(0);
    expect(out).not.toContain(token);
    expect(out).toMatch(
      /^stallscope dashboard listening on http:\/\/127\.0\.0\.1:\d+ \(a token is required: the one given with --token\)$/m,
    );
  }, 30_000);

  it('$STALLSCOPE_TOKEN: the same, naming the variable', async () => {
    const token = 'given-by-env-c3a9';
    const { code, out } = await serve(dataDir(), { STALLSCOPE_TOKEN: token });
    expect(code).toBe(0);
    expect(out).not.toContain(token);
    expect(out).toMatch(
      /^stallscope dashboard listening on http:\/\/127\.0\.0\.1:\d+ \(a token is required: the one given in \$STALLSCOPE_TOKEN\)$/m,
    );
  }, 30_000);
});

describe('serve prints no database password', () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.destroy());

  it('in its start line (a real PostgreSQL; the password in the userinfo and in ?password=)', async () => {
    const u = new URL(await pg.freshDatabase());
    u.username = 'postgres';
    u.password = 'userinfo-pw-1e4a';
    u.searchParams.set('password', 'query-pw-9c2f');
    const { code, out } = await serve(['--database', u.toString()]);
    expect(code, out).toBe(0);
    expect(out).not.toMatch(/userinfo-pw|query-pw/);
    expect(out).toContain(`stallscope: data in postgres://***@127.0.0.1:${pg.port}${u.pathname}?password=***`);
  }, 60_000);

  it('in the error of a database it cannot reach', async () => {
    const { code, out } = await serve([
      '--database',
      'postgres://ci:userinfo-pw-77@127.0.0.1:1/x?password=query-pw-77',
    ]);
    expect(code).not.toBe(0);
    expect(out).not.toMatch(/userinfo-pw|query-pw/);
    expect(out).toMatch(
      /^stallscope serve: the database cannot be opened: postgres:\/\/\*\*\*@127\.0\.0\.1:1\/x\?password=\*\*\* .*ECONNREFUSED/m,
    );
  }, 30_000);
});
