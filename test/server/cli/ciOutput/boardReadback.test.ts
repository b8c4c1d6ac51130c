/**
 * Reading the board's filing of a run back, against a loopback stand-in dashboard whose replies change as the
 * evidence arrives: the reader asks until a group holds a stack of the run (the watchdog's report comes after
 * the client's timeout), reads the stack from the run's detail, takes the sentence from today's `jobs[]` or a
 * group's own `sentence` (the per-job groups another change brings), and after its bound settles for the
 * phase-only filing, saying so; a reply without groups is "no evidence", never a crash.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boardTarget, readBoardFiling, type BoardTarget } from '#server/cli/ciOutput/boardReadback.ts';

let server: Server | null = null;
afterEach(async () => {
  const s = server;
  server = null;
  if (s) await new Promise((r) => s.close(r));
});

/** A stand-in serving `stalls(n)` for the n-th GET /api/stalls and `detail` for GET /api/runs/r1. */
async function dashboard(stalls: (n: number) => unknown, detail: unknown = { stallReports: [] }) {
  let n = 0;
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization ?? ''}`);
    const body = req.url!.startsWith('/api/stalls') ? stalls(++n) : detail;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const t: BoardTarget = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'sst_view_x',
    runId: 'r1',
    pipeline: 'vllm-omni',
    step: 'minicpmo-accuracy',
  };
  return { t, seen, polls: () => n };
}

const phaseOnly = { fingerprint: 'aaaaaaaaaaaa', phase: 'hift', label: 'hift', frames: [], runs: ['r1'] };
const stack = {
  fingerprint: 'bbbbbbbbbbbb',
  phase: 'hift',
  label: 'hift/blockOnDeviceSync',
  frames: ['blockOnDeviceSync (hang.ts)'],
  runs: ['r0', 'r1'],
  evidence: [{ runId: 'r1', refs: ['w0-op3', 'timeout-0'] }],
};

describe('readBoardFiling', () => {
  it("asks until the run's stack is in, then reads its frames; the job's sentence from jobs[]", async () => {
    const { t, seen, polls } = await dashboard(
      (n) => ({
        groups:
          n < 3
            ? [phaseOnly]
            : [
                {
                  ...stack,
                  jobs: [
                    { pipeline: 'other', step: 'x', sentence: 'not this one' },
                    { pipeline: 'vllm-omni', step: 'minicpmo-accuracy', sentence: 'seen in 2 of the last 3 runs' },
                  ],
                },
              ],
      }),
      {
        stallReports: [
          {
            fingerprint: { fingerprint: 'cccccccccccc' },
            report: { stack: [{ function: 'other', file: 'o.py', line: 1 }] },
          },
          {
            fingerprint: { fingerprint: 'bbbbbbbbbbbb' },
            report: { stack: [{ function: 'blockOnDeviceSync', file: 'hang.ts', line: 16 }] },
          },
        ],
      },
    );
    const r = await readBoardFiling(t, new AbortController().signal, 5000);
    expect(polls()).toBe(3);
    expect(r).toEqual({
      ok: true,
      note: null,
      stall: {
        source: 'board',
        fingerprint: 'bbbbbbbbbbbb',
        phase: 'hift',
        label: 'hift/blockOnDeviceSync',
        stack: ['blockOnDeviceSync (hang.ts:16)'],
        boardSentence: 'seen in 2 of the last 3 runs',
      },
    });
    expect(seen[0]).toBe(
      '/api/stalls?metadata=ci_pipeline%3Dvllm-omni&metadata=ci_step%3Dminicpmo-accuracy Bearer sst_view_x',
    );
  });

  it("a group's own sentence (groups per job); a phase-only filing after the bound, said so", async () => {
    const perJob = await dashboard(() => ({ groups: [{ ...stack, sentence: 'per-job sentence' }] }));
    const r = await readBoardFiling(perJob.t, new AbortController().signal, 5000);
    expect(r.ok && r.stall.boardSentence).toBe('per-job sentence');
    const first = server!;
    await new Promise((res) => first.close(res));

    const slow = await dashboard(() => ({ groups: [phaseOnly] }));
    const t0 = performance.now();
    const p = await readBoardFiling(slow.t, new AbortController().signal, 600);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(p).toMatchObject({ ok: true, stall: { fingerprint: 'aaaaaaaaaaaa', stack: [] } });
    expect(p.note).toMatch(
      /^no stack of this run reached the dashboard within 0\.6 s .* phase-only fingerprint aaaaaaaaaaaa/,
    );
  });

  it('a reply without groups, or without this run, is no evidence', async () => {
    const { t } = await dashboard(() => ({
      something: 'else',
      groups: [{ fingerprint: 'x', runs: ['other'] }, 7, null],
    }));
    expect(await readBoardFiling(t, new AbortController().signal, 300)).toEqual({
      ok: false,
      why: 'the board holds no stall evidence of run r1 after 0.3 s',
    });
  });
});

describe('boardTarget', () => {
  it('reads with $STALLSCOPE_VIEW_TOKEN when set, else the --report-to token; the base never holds it', () => {
    expect(boardTarget('http://d:7077/?token=sst_report_a', {})).toEqual({
      base: 'http://d:7077',
      token: 'sst_report_a',
    });
    expect(boardTarget('http://d:7077/x/?token=sst_report_a', { STALLSCOPE_VIEW_TOKEN: 'sst_view_b' })).toEqual({
      base: 'http://d:7077/x',
      token: 'sst_view_b',
    });
    expect(boardTarget('http://d:7077', { STALLSCOPE_TOKEN: 'sst_report_c' }).token).toBe('sst_report_c');
  });
});
