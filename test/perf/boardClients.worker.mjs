// The board's viewers and a fleet's reporters, in their own thread (as browsers and CI nodes are their own
// processes) for boardScale.bench.ts: `viewers` clients each GET the board once a second, and `reporters` reported
// runs each POST a batch of `batchEvents` events `batchesPerS` times a second (a request's queued, sent, first token
// and completed events), for `seconds`. Posts back each batch's latency seen here and each board request's.
import { parentPort, workerData } from 'node:worker_threads';

const { url, boardPath, viewers, reporters, batchEvents, batchesPerS, seconds } = workerData;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const until = performance.now() + seconds * 1000;
const ingestMs = [];
const boardMs = [];
const errors = [];

async function post(path, body) {
  const r = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${path}: HTTP ${r.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function viewer() {
  while (performance.now() < until) {
    const t0 = performance.now();
    const r = await fetch(url + boardPath);
    await r.arrayBuffer();
    if (r.status !== 200) errors.push(`board: HTTP ${r.status}`);
    boardMs.push(performance.now() - t0);
    await sleep(Math.max(0, 1000 - (performance.now() - t0)));
  }
}

async function reporter(k) {
  const runId = `board-scale-reporter-${k}-${Date.now()}`;
  await post('/api/runs/external', {
    runId,
    label: `reporter ${k}`,
    config: { numPrompts: 1_000_000, maxConcurrency: 10 },
    metadata: { ci_pipeline: 'vllm-omni/nightly-live', ci_step: 'accuracy', ci_node: `gpu-node-${k}` },
  });
  const started = { type: 'run.started', t: 0, runId, startedAtMs: Date.now(), numRequests: 1_000_000 };
  Object.assign(started, {
    maxConcurrency: 10,
    requestRate: 'inf',
    failFast: false,
    model: 'm',
    baseUrl: 'http://127.0.0.1:9',
  });
  await post(`/api/runs/${runId}/events`, { events: [started] });
  let index = 0;
  let t = 1;
  let pending = [];
  const next = () => {
    if (pending.length === 0) {
      const requestId = `${runId}-${index}`;
      const outcome = { index, requestId, status: 'completed', ttftS: 0.01, e2elS: 0.5, audioTtfpS: 0.1 };
      Object.assign(outcome, { audioDurationS: 1, outputTokens: 16, promptLen: 32, attempts: 1, error: '', sentT: t });
      pending = [
        { type: 'request.queued', t, index, requestId },
        { type: 'request.sent', t: t + 1, index, requestId, attempt: 1 },
        { type: 'request.first_token', t: t + 2, index, ttftS: 0.01 },
        { type: 'request.completed', t: t + 3, outcome },
      ];
      index++;
      t += 4;
    }
    return pending.shift();
  };
  const every = 1000 / batchesPerS;
  while (performance.now() < until) {
    const t0 = performance.now();
    const events = Array.from({ length: batchEvents }, next);
    try {
      await post(`/api/runs/${runId}/events`, { events });
      ingestMs.push(performance.now() - t0);
    } catch (e) {
      errors.push(String(e.message));
    }
    await sleep(Math.max(0, every - (performance.now() - t0)));
  }
}

await Promise.all([
  ...Array.from({ length: viewers }, viewer),
  ...Array.from({ length: reporters }, (_, k) => reporter(k)),
]);
parentPort.postMessage({ ingestMs, boardMs, errors: errors.slice(0, 5), errorCount: errors.length });
