import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveToken, run } from '#server/cli/serve.ts';
import { webBuildNeeded } from '#server/cli/webBuild.ts';

const BIN = fileURLToPath(new URL('../../../../bin/stallscope.js', import.meta.url));

/** Starts `stallscope serve`, resolves with the child and its stdout once the listening line is out. */
function serve(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  return { child, exited, listening, out: () => out };
}

describe('stallscope serve', () => {
  it('creates the data dir, serves the API, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'stallscope-serve-')), 'nested', 'data');
    const s = serve(['--data-dir', dataDir]);
    const url = await s.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(join(dataDir, 'stallscope.db'))).toBe(true);
    expect(await (await fetch(`${url}/api/health`)).json()).toMatchObject({ ok: true });
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 20_000);

  it('enforces a given token (a non-loopback bind generates one; tests bind loopback only)', async () => {
    const s = serve(['--token', 'abc', '--data-dir', mkdtempSync(join(tmpdir(), 'stallscope-serve-'))]);
    const base = await s.listening;
    // A given token is never printed (docs/design.md#secrets).
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.out()).not.toContain('abc');
    expect((await fetch(`${base}/api/runs`)).status).toBe(401);
    expect((await fetch(`${base}/api/runs`, { headers: { authorization: 'Bearer abc' } })).status).toBe(200);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(resolveToken('127.0.0.1', undefined)).toEqual({ token: null, generated: false });
    expect(resolveToken('localhost', 'x')).toEqual({ token: 'x', generated: false });
    const g = resolveToken('0.0.0.0', undefined);
    expect(g.generated).toBe(true);
    expect(g.token!.length).toBeGreaterThanOrEqual(32);
    expect(resolveToken('192.168.1.5', undefined).token).not.toBe(g.token);
  }, 20_000);

  it('refuses a bad port or an unknown flag with exit 2', async () => {
    const err = console.error;
    console.error = () => {};
    try {
      expect(await run(['--port', 'abc'])).toBe(2);
      expect(await run(['--bogus'])).toBe(2);
    } finally {
      console.error = err;
    }
  });

  it('--build-if-needed builds when dist/web is missing or older than web/', () => {
    const root = mkdtempSync(join(tmpdir(), 'stallscope-web-'));
    const src = join(root, 'web');
    const out = join(root, 'dist');
    mkdirSync(join(src, 'pages'), { recursive: true });
    writeFileSync(join(src, 'pages', 'A.tsx'), 'x');
    expect(webBuildNeeded(src, out, join(root, 'none'))).toBe(true);
    mkdirSync(out);
    writeFileSync(join(out, 'index.html'), '<html>');
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(src, 'pages', 'A.tsx'), past, past);
    expect(webBuildNeeded(src, out, join(root, 'none'))).toBe(false);
    utimesSync(join(src, 'pages', 'A.tsx'), new Date(), new Date(Date.now() + 1000));
    expect(webBuildNeeded(src, out, join(root, 'none'))).toBe(true);
  });
});
