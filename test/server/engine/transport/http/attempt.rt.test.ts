import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSseServer, refusedPort, type Behaviour, type TestServer } from '#test/helpers/sseServer.ts';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import { effectiveTimeouts } from '#shared/config/timeouts.ts';
import { runRequest, type RequestJob } from '#server/engine/dispatch/requestRunner.ts';
import { CancelledError } from '#server/engine/transport/http/reasons.ts';
import { Cancellation } from '#server/engine/transport/http/cancellation.ts';
import type { AttemptTarget } from '#server/engine/transport/http/attempt.ts';

let server: TestServer;
let behaviour: Behaviour = { kind: 'ok' };
let agent: RunConnections | undefined;

beforeAll(async () => {
  server = await startSseServer(() => behaviour);
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await agent?.sweep(null);
  agent = undefined;
});

const job: RequestJob = {
  index: 0,
  requestId: 'r-0',
  headers: { 'content-type': 'application/json', 'x-request-id': 'r-0' },
  body: '{}',
  promptLen: 3,
};

function target(url: string, t: { totalS?: number; firstByteS?: number; idleS?: number } = {}): AttemptTarget {
  const u = new URL(url);
  agent = new RunConnections(u.origin, { maxConcurrency: 4, mode: 'keep_alive' });
  return {
    dispatcher: agent,
    origin: u.origin,
    path: '/v1/chat/completions',
    limits: effectiveTimeouts(t),
    now: () => performance.now() / 1000,
  };
}

describe('one request against a misbehaving target', () => {
  it('completes a normal stream', async () => {
    behaviour = { kind: 'ok', tokens: 4, audioChunks: 1 };
    const end = await runRequest(target(server.url), job, new Cancellation(), {});
    expect(end.status).toBe('completed');
    expect(end.record.outputTokens).toBe(4);
    expect(end.record.audioDuration).toBeCloseTo(0.1, 9);
  });

  it('a response over before its total timeout is not timed out by that timer firing before the end is heard', async () => {
    // The whole answer in one read; its handling (a hook holding the thread) runs past the 150 ms limit, so the
    // timer is due in the turn between the response's end and its `done` (heard a turn later: read time).
    behaviour = { kind: 'ok', tokens: 4 };
    const t0 = performance.now();
    const timeouts: string[] = [];
    const end = await runRequest(target(server.url, { totalS: 0.15 }), job, new Cancellation(), {
      onMessage: () => {
        while (performance.now() - t0 < 250);
      },
      onTimeout: (e) => timeouts.push(e.kind),
    });
    expect(timeouts).toEqual([]);
    expect(end.status).toBe('completed');
    expect(end.record.outputTokens).toBe(4);
  });

  it('a 500 is a failure with the reason phrase, not a timeout, and is not retried', async () => {
    behaviour = { kind: 'status', status: 500 };
    const before = server.arrivals.length;
    const end = await runRequest(target(server.url, { totalS: 2 }), job, new Cancellation(), {});
    expect(end.status).toBe('failed');
    expect(end.record.error).toBe('Internal Server Error'); // the reason phrase, as vLLM stores it
    expect(end.record.errorCode).toBe('REQ_HTTP_STATUS');
    expect(server.arrivals.length - before).toBe(1);
  });

  it('a non-200 with a long, never-ending body is still a prompt HTTP failure (the body is dropped after 64 KiB)', async () => {
    behaviour = { kind: 'status', status: 502, bodyBytes: 256 * 1024, hold: true };
    const end = await runRequest(target(server.url, { totalS: 5 }), job, new Cancellation(), {});
    expect(end.status).toBe('failed');
    expect(end.record.error).toBe('Bad Gateway');
  });

  it('a reset is a transport failure retried 3 more times, 100 ms apart, not a timeout', async () => {
    behaviour = { kind: 'reset' };
    const before = server.arrivals.length;
    const t0 = performance.now();
    const end = await runRequest(target(server.url, { totalS: 5 }), job, new Cancellation(), {});
    expect(end.status).toBe('failed');
    expect(end.timeoutKind).toBeUndefined();
    expect(end.record.errorCode).toBe('REQ_TRANSPORT');
    expect(end.record.attempts).toBe(4);
    expect(server.arrivals.length - before).toBe(4);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(300);
  });

  it('a reset mid-stream is a transport failure', async () => {
    behaviour = { kind: 'reset-mid-stream', events: 2 };
    const end = await runRequest(target(server.url, { totalS: 5 }), job, new Cancellation(), {});
    expect(end.status).toBe('failed');
    expect(end.record.errorCode).toBe('REQ_TRANSPORT');
    expect(end.record.attempts).toBe(4);
  });

  it('a refused connection is a transport failure, retried, not a timeout', async () => {
    const port = await refusedPort();
    const end = await runRequest(target(`http://127.0.0.1:${port}`, { totalS: 5 }), job, new Cancellation(), {});
    expect(end.status).toBe('failed');
    expect(end.record.errorCode).toBe('REQ_TRANSPORT');
    expect(end.record.error).toContain('ECONNREFUSED');
    expect(end.record.attempts).toBe(4);
  });

  it('total timeout: silence after accept', async () => {
    behaviour = { kind: 'hang' };
    const before = server.arrivals.length;
    const end = await runRequest(target(server.url, { totalS: 0.2 }), job, new Cancellation(), {});
    expect(end.status).toBe('timed_out');
    expect(end.timeoutKind).toBe('total');
    expect(end.record.errorCode).toBe('REQ_TIMEOUT');
    expect(server.arrivals.length - before).toBe(1); // never retried
  });

  it('first_byte timeout: no headers in time', async () => {
    behaviour = { kind: 'hang' };
    const end = await runRequest(target(server.url, { totalS: 5, firstByteS: 0.15 }), job, new Cancellation(), {});
    expect(end.status).toBe('timed_out');
    expect(end.timeoutKind).toBe('first_byte');
  });

  it('first_byte is met by the headers; idle then fires on a silent stream', async () => {
    behaviour = { kind: 'hang-mid-stream', events: 2 };
    const end = await runRequest(
      target(server.url, { totalS: 5, firstByteS: 2, idleS: 0.2 }),
      job,
      new Cancellation(),
      {},
    );
    expect(end.status).toBe('timed_out');
    expect(end.timeoutKind).toBe('idle');
    expect(end.record.ttft).toBeGreaterThan(0); // partial fields kept
  });

  it('idle is restarted by each event: a slow but steady stream completes', async () => {
    behaviour = { kind: 'ok', tokens: 6, gapMs: 60 };
    const end = await runRequest(target(server.url, { totalS: 5, idleS: 0.6 }), job, new Cancellation(), {});
    expect(end.status).toBe('completed');
  });

  it('a cancellation by the breaker is classified as such', async () => {
    behaviour = { kind: 'hang-after-headers' };
    const cancel = new Cancellation();
    setTimeout(() => cancel.cancel(new CancelledError('breaker')), 50);
    const end = await runRequest(target(server.url, { totalS: 5 }), job, cancel, {});
    expect(end.status).toBe('cancelled_after_timeout');
    expect(end.record.errorCode).toBe('REQ_CANCELLED');
  });

  it('a cancellation during the retry back-off ends the request at once, without another attempt', async () => {
    const port = await refusedPort();
    const cancel = new Cancellation();
    const t0 = performance.now();
    const run = runRequest(target(`http://127.0.0.1:${port}`, { totalS: 5 }), job, cancel, {
      onAttempt: (attempt) => {
        if (attempt === 2) setTimeout(() => cancel.cancel(new CancelledError('breaker')), 20);
      },
    });
    const end = await run;
    expect(end.status).toBe('cancelled_after_timeout');
    expect(end.record.attempts).toBe(2);
    expect(performance.now() - t0).toBeLessThan(250);
  });
});
