import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { createProgress } from '#server/cli/benchProgress.ts';
import type { BenchEvent, RequestOutcome } from '#shared/protocol/protocol.ts';

const outcome = (index: number, status: RequestOutcome['status']): RequestOutcome => ({
  index,
  requestId: `r-${index}`,
  status,
  ttftS: 0,
  e2elS: 0,
  audioTtfpS: 0,
  audioDurationS: 0,
  outputTokens: 0,
  promptLen: 0,
  attempts: 1,
  error: '',
  sentT: 0,
});

describe('createProgress', () => {
  it('no bar when the stream is not a TTY (CI logs stay clean)', () => {
    expect(createProgress(new PassThrough() as unknown as NodeJS.WriteStream)).toBeNull();
  });

  it('on a TTY it counts done, failed, timed out and in flight', () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 120,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(stream)!;
    const events: BenchEvent[] = [
      {
        type: 'run.started',
        t: 0,
        runId: 'r',
        startedAtMs: 0,
        numRequests: 4,
        maxConcurrency: 2,
        requestRate: 'inf',
        failFast: true,
        model: 'm',
        baseUrl: 'u',
      },
      { type: 'request.sent', t: 1, index: 0, requestId: 'r-0', attempt: 1 },
      { type: 'request.sent', t: 1, index: 1, requestId: 'r-1', attempt: 1 },
      { type: 'request.completed', t: 2, outcome: outcome(0, 'completed') },
      { type: 'request.timed_out', t: 3, kind: 'total', outcome: outcome(1, 'timed_out') },
      { type: 'request.unsent', t: 3, outcome: outcome(2, 'not_dispatched') },
      { type: 'request.unsent', t: 3, outcome: outcome(3, 'not_dispatched') },
    ];
    for (const e of events) p.onEvent(e);
    p.stop();
    expect(text).toContain('4/4 | done 1 failed 3 (timed out 1) in flight 0');
  });

  it('counts as the dashboard does: a timeout and a cancellation are failures, a request failed before its send held no slot', () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 120,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(stream)!;
    const events: BenchEvent[] = [
      {
        type: 'run.started',
        t: 0,
        runId: 'r',
        startedAtMs: 0,
        numRequests: 4,
        maxConcurrency: 4,
        requestRate: 'inf',
        failFast: false,
        model: 'm',
        baseUrl: 'u',
      },
      { type: 'request.sent', t: 1, index: 0, requestId: 'r-0', attempt: 1 },
      { type: 'request.sent', t: 1, index: 1, requestId: 'r-1', attempt: 1 },
      { type: 'request.sent', t: 1, index: 1, requestId: 'r-1', attempt: 2 },
      { type: 'request.sent', t: 1, index: 3, requestId: 'r-3', attempt: 1 },
      // Its prompt could not be prepared: failed, unsent.
      { type: 'request.failed', t: 2, outcome: { ...outcome(2, 'failed'), attempts: 0, sentT: null } },
      { type: 'request.timed_out', t: 3, kind: 'idle', outcome: outcome(0, 'timed_out') },
      { type: 'request.cancelled', t: 4, outcome: { ...outcome(1, 'cancelled'), stoppedBy: 'interrupt' } },
    ];
    for (const e of events) p.onEvent(e);
    p.stop();
    expect(text).toContain('3/4 | done 0 failed 3 (timed out 1) in flight 1');
  });

  it('after the benchmark, a second bar follows the Seed-TTS transcriptions', () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 120,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(stream)!;
    const item = (index: number, wer: number | null): BenchEvent => ({
      type: 'accuracy.item',
      t: 10,
      index,
      utteranceId: `u${index}`,
      reference: 'x',
      transcript: wer === null ? null : 'x',
      wer,
      error: wer === null ? 'empty_asr' : null,
    });
    const events: BenchEvent[] = [
      {
        type: 'run.started',
        t: 0,
        runId: 'r',
        startedAtMs: 0,
        numRequests: 3,
        maxConcurrency: 2,
        requestRate: 'inf',
        failFast: false,
        model: 'm',
        baseUrl: 'u',
      },
      { type: 'accuracy.started', t: 9, total: 3, asrModel: 'w', bounds: [] },
      item(0, 0),
      item(2, null),
      item(1, 0.5),
    ];
    for (const e of events) p.onEvent(e);
    p.stop();
    expect(text).toContain('WER eval');
    expect(text).toContain('3/3 | evaluated 2 excluded 1');
  });

  it("on a TTY a Hub download has its own bar: the locale's megabytes and files, ended when done", () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 160,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(stream)!;
    const at = (filesDone: number, bytesDone: number, done = false) =>
      p.onDownload({ repoId: 'org/ds', locale: 'en', files: 3, filesDone, bytes: 3_000_000, bytesDone, done });
    at(0, 0);
    at(1, 1_000_000);
    at(3, 3_000_000, true);
    p.stop();
    expect(text).toContain('org/ds en/');
    expect(text).toContain('3.0/3.0 MB | files 3/3');
  });
});
