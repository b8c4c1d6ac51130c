/**
 * What the CI outputs do when they cannot: an unwritable JUnit path, `--ci-summary` outside Buildkite and
 * GitHub Actions, a `--report-to` dashboard that is gone — each is one warning line, said in the file too where
 * there is one; nothing throws (the run's exit code is the caller's, unchanged).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { RunEvidence, writeCiOutputs } from '#server/cli/ciOutput/index.ts';
import type { RunSummary } from '#shared/protocol/protocol.ts';

const summary: RunSummary = {
  verdict: 'failed_closed',
  verdictReasons: ['failed closed: a partial run never passes, whatever its scores', '1 request timed out'],
  counts: {
    total: 1,
    completed: 0,
    failed: 1,
    timedOut: 1,
    cancelledAfterTimeout: 0,
    cancelled: 0,
    errored: 0,
    unsent: 0,
  },
  durationS: 2,
  breakerTripped: true,
  cause: null,
  metrics: {},
};

function stalled(): RunEvidence {
  const e = new RunEvidence();
  e.onEvent({
    type: 'request.timed_out',
    kind: 'total',
    t: 2000,
    outcome: { index: 0, requestId: 'r-0', status: 'timed_out' } as never,
  });
  return e;
}

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('writeCiOutputs when it cannot', () => {
  it('an unwritable JUnit path and --ci-summary outside CI: one warning each, nothing thrown', async () => {
    const warnings: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'ci-out-'));
    await writeCiOutputs({
      flags: { junitXml: join(dir, 'no', 'such', 'dir', 'j.xml'), summary: true },
      config: parseBenchArgs(['--model', 'm'], {}).config,
      summary,
      result: {},
      evidence: stalled(),
      reportTo: null,
      env: {},
      warn: (l) => warnings.push(l),
      signal: new AbortController().signal,
    });
    expect(warnings).toEqual([
      expect.stringMatching(/^stallscope bench: warning: --junit-xml .*j\.xml could not be written: ENOENT/),
      'stallscope bench: warning: --ci-summary: not on Buildkite (BUILDKITE=true) or GitHub Actions ($GITHUB_STEP_SUMMARY): no summary written',
    ]);
  });

  it('a --report-to dashboard that is gone: the file says whose fingerprint it holds and why, as stderr does', async () => {
    const warnings: string[] = [];
    const file = join(mkdtempSync(join(tmpdir(), 'ci-out-')), 'j.xml');
    const port = await deadPort();
    await writeCiOutputs({
      flags: { junitXml: file, summary: false },
      config: parseBenchArgs(['--model', 'm'], {}).config,
      summary,
      result: {},
      evidence: stalled(),
      reportTo: `http://127.0.0.1:${port}/?token=sst_report_secret`,
      env: {},
      warn: (l) => warnings.push(l),
      signal: new AbortController().signal,
    });
    expect(warnings).toEqual([
      `stallscope bench: WARNING: the board's fingerprint for this run could not be read from http://127.0.0.1:${port} (GET /api/stalls: ECONNREFUSED); the fingerprint here is the bench's own (unknown), which the board may file differently`,
    ]);
    const xml = readFileSync(file, 'utf8');
    expect(xml).toContain('<system-out>WARNING: the board&apos;s fingerprint'.replace('&apos;', "'"));
    expect(xml).toContain('<property name="fingerprint_source" value="bench"/>');
    expect(xml).not.toContain('sst_report_secret');
  });
});
