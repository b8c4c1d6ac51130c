/**
 * `stallscope token` and `stallscope serve --token` through the real bin: a
 * report token made by the CLI posts a run and cannot read; `token list`
 * shows no token; `token revoke NAME` stops it at once; the database files
 * on disk hold the hashes, never a token. Also serve's retention flags.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { retentionPolicy } from '#server/cli/serve.ts';
import { startSseServer } from '#test/helpers/sseServer.ts';

const BIN = fileURLToPath(new URL('../../../bin/stallscope.js', import.meta.url));
const ADMIN = 'admin-token-from-the-command-line';

function serve(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/[^/\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  return { child, exited, listening, out: () => out };
}

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await promisify(execFile)(process.execPath, [BIN, 'token', ...args], {
      env: { ...process.env, STALLSCOPE_TOKEN: '', ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('stallscope token (real bin)', () => {
  it('creates, lists and revokes scoped tokens against a running dashboard; the database keeps hashes only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-token-'));
    const s = serve(['--token', ADMIN, '--data-dir', dataDir, '--retain-runs', '50']);
    const url = await s.listening;
    try {
      const at = ['--dashboard', url];
      // Without the admin token: refused, saying why, exit 1.
      const refused = await cli(['list', ...at]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/answered 401 \(API_UNAUTHORIZED/);

      const made = await cli(['create', '--scope', 'report', '--name', 'nightly-amd', ...at], {
        STALLSCOPE_TOKEN: ADMIN,
      });
      expect(made.code).toBe(0);
      const report = made.stdout.trim();
      expect(report).toMatch(/^sst_report_[A-Za-z0-9_-]{43}$/);
      expect(made.stderr).toMatch(/created report token 'nightly-amd' \(tok_[0-9a-f]+\); it is shown this once/);
      const view = (await cli(['create', '--scope', 'view', '--name', 'wall', '--token', ADMIN, ...at])).stdout.trim();

      const post = (token: string) =>
        fetch(`${url}/api/runs/external`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ runId: `ci-${Math.random().toString(36).slice(2)}` }),
        });
      expect((await post(report)).status).toBe(201);
      expect((await post(view)).status).toBe(403);
      expect((await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${report}` } })).status).toBe(403);
      expect((await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${view}` } })).status).toBe(200);

      // The real `stallscope bench --report-to` with the report token on its URL: the run is stored, whole.
      const target = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
      try {
        const bench = await promisify(execFile)(
          process.execPath,
          [
            BIN,
            'bench',
            '--base-url',
            target.url,
            '--model',
            'm',
            '--num-prompts',
            '3',
            '--random-input-len',
            '4',
          ].concat(['--run-id', 'nightly-1', '--report-to', `${url}/?token=${report}`]),
          { env: { ...process.env, STALLSCOPE_TOKEN: '' } },
        );
        expect(bench.stderr).not.toMatch(/dashboard/i);
      } finally {
        await target.close();
      }
      const stored = (await (
        await fetch(`${url}/api/runs/nightly-1`, { headers: { authorization: `Bearer ${view}` } })
      ).json()) as { status: string; counts: { completed: number } };
      expect(stored).toMatchObject({ status: 'finished', counts: { completed: 3 } });

      const list = await cli(['list', '--token', ADMIN, ...at]);
      expect(list.stdout).toMatch(/nightly-amd\s+report\s+sst_report_/);
      expect(list.stdout).toMatch(/wall\s+view\s+sst_view_/);
      expect(list.stdout).not.toContain(report);
      expect(list.stdout).not.toContain(view);

      const revoked = await cli(['revoke', 'nightly-amd', '--token', ADMIN, ...at]);
      expect(revoked).toMatchObject({ code: 0, stdout: expect.stringMatching(/^revoked report token 'nightly-amd'/) });
      expect((await post(report)).status).toBe(401);
      expect((await cli(['revoke', 'nightly-amd', '--token', ADMIN, ...at])).code).toBe(1); // no unrevoked one left
      expect((await cli(['bogus', ...at])).code).toBe(2);

      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      // Every file of the database (main, WAL) holds the hash and never the token.
      const bytes = readdirSync(dataDir)
        .filter((f) => f.startsWith('stallscope.db'))
        .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
        .join('');
      for (const t of [report, view]) {
        expect(bytes).not.toContain(t);
        expect(bytes).not.toContain(t.slice(12));
        expect(bytes).toContain(createHash('sha256').update(t).digest('hex'));
      }
    } finally {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
    }
  }, 30_000);

  it('serve refuses a retention flag that is not a positive integer', () => {
    expect(retentionPolicy('30', undefined)).toEqual({ retainDays: 30, retainRuns: null });
    expect(retentionPolicy(undefined, '500')).toEqual({ retainDays: null, retainRuns: 500 });
    for (const bad of ['0', '-1', '1.5', 'x', '', '1e3'])
      expect(() => retentionPolicy(bad, undefined), bad).toThrow(/--retain-days must be a positive integer/);
    expect(() => retentionPolicy(undefined, '0')).toThrow(/--retain-runs must be a positive integer/);
  });
});
