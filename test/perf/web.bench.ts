/**
 * Web UI benchmarks in headless Chromium against the real dashboard server:
 * 1. open a stored 10,000-request run: time until the timeline is drawn
 *    (target < 1.5 s) and until every event is loaded; fps while scrolling it;
 * 2. live: 2,000 events/s for 10 s into a run the page is watching: lag of the
 *    page's rendered counters behind the server (target p99 < 500 ms) and the
 *    frame rate while scrolling the timeline meanwhile (target >= 30 fps).
 * Runs are fed through the server's own `--report-to` API (run events) and its
 * ingest route (Code2Wav telemetry), so the events take the real path: hub,
 * store, WebSocket, reducer, React.
 */
import type { Page } from 'playwright-core';
import { WebSocket } from 'ws';
import type { IngestReply } from '#shared/protocol/apiSchemas.ts';
import type { BenchEvent, RunEvent } from '#shared/protocol/protocol.ts';
import { ensureWebBuild, launchBrowser } from '../helpers/browser.ts';
import { startServer } from '../helpers/dashboardProcess.ts';

const T0 = Date.now();
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.min(s.length - 1, lo + 1)] - s[lo]) * (i - lo);
};
const line = (name: string, value: string, target: string, ok: boolean) =>
  console.log(`${name.padEnd(46)} ${value.padStart(12)}   target ${target.padEnd(10)} ${ok ? 'OK' : 'MISSED'}`);

/** The events of request i, with one Code2Wav op of three phases, starting at t ms. */
function requestEvents(i: number, t: number, runId: string, startedAtMs: number): RunEvent[] {
  const id = `${runId}-${i}`;
  const tel = (dt: number, ev: Record<string, unknown>): RunEvent =>
    ({
      type: 'telemetry',
      t: t + dt,
      event: { v: 1, ts: startedAtMs + t + dt, requestIds: [id], workerId: 0, opId: i, ...ev },
    }) as RunEvent;
  const outcome = {
    index: i,
    requestId: id,
    status: 'completed' as const,
    ttftS: 0.05 + (i % 17) / 1000,
    e2elS: 0.4 + (i % 31) / 100,
    audioTtfpS: 0.2,
    audioDurationS: 1,
    outputTokens: 16,
    promptLen: 32,
    attempts: 1,
    error: '',
    sentT: t + 1,
  };
  return [
    { type: 'request.queued', t, index: i, requestId: id },
    { type: 'request.sent', t: t + 1, index: i, requestId: id, attempt: 1 },
    { type: 'request.first_token', t: t + 50, index: i, ttftS: 0.049 },
    tel(60, { type: 'c2w.op.begin', batchSize: 1 }),
    tel(61, { type: 'c2w.phase', phase: 'encoder', details: { codes: 28 } }),
    tel(70, { type: 'c2w.phase', phase: 'cfm', details: { steps: 10 } }),
    tel(120, { type: 'c2w.phase', phase: 'hift', details: { mel_frames: 50 } }),
    tel(150, { type: 'c2w.op.end', durationMs: 90, ok: true }),
    { type: 'request.first_audio', t: t + 200, index: i, audioTtfpS: 0.2 },
    { type: 'request.completed', t: t + 400, outcome },
  ];
}

async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const r = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/**
 * Feeds a batch as a reporting job does: run events to the run's events route, Code2Wav telemetry as NDJSON to
 * /api/ingest (the events route takes run events only and refuses a batch with telemetry whole), and a
 * `run.finished` last, after the batch's telemetry.
 */
async function feed(url: string, runId: string, batch: RunEvent[]): Promise<void> {
  const run: RunEvent[] = [];
  const telemetry: unknown[] = [];
  const last: RunEvent[] = [];
  for (const e of batch)
    if (e.type === 'telemetry') telemetry.push(e.event);
    else if (e.type === 'run.finished') last.push(e);
    else run.push(e);
  if (run.length > 0) await post(url, `/api/runs/${runId}/events`, { events: run });
  if (telemetry.length > 0) {
    const r = await fetch(`${url}/api/ingest?runId=${encodeURIComponent(runId)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: telemetry.map((t) => JSON.stringify(t)).join('\n'),
    });
    const reply = (await r.json()) as IngestReply;
    if (!r.ok || reply.accepted !== telemetry.length || reply.unjoined !== 0)
      throw new Error(
        `/api/ingest: ${r.status}, ${reply.accepted}/${telemetry.length} accepted: ${JSON.stringify(reply)}`,
      );
  }
  if (last.length > 0) await post(url, `/api/runs/${runId}/events`, { events: last });
}

function started(runId: string, n: number, startedAtMs: number): BenchEvent {
  return {
    type: 'run.started',
    t: 0,
    runId,
    startedAtMs,
    numRequests: n,
    maxConcurrency: 10,
    requestRate: 'inf',
    failFast: true,
    model: 'bench',
    baseUrl: 'embedded',
  };
}

/**
 * Scroll the timeline for `ms` in the page and count frames. The page code is
 * a string: tsx's name-keeping helpers do not exist inside the page.
 */
const SCROLL_FPS = `(async (dur) => {
  const el = document.querySelector('[data-testid="timeline"]');
  const frames = [];
  const t0 = performance.now();
  let last = t0;
  await new Promise((done) => {
    const step = (now) => {
      frames.push(now - last);
      last = now;
      el.scrollTop = (el.scrollTop + 160) % Math.max(1, el.scrollHeight - el.clientHeight);
      if (now - t0 < dur) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  const sorted = frames.slice(1).sort((a, b) => a - b);
  return { fps: (frames.length - 1) / ((last - t0) / 1000), p95FrameMs: sorted[Math.floor(sorted.length * 0.95)] };
})`;

async function scrollFps(page: Page, ms: number): Promise<{ fps: number; p95FrameMs: number }> {
  return page.evaluate(`${SCROLL_FPS}(${ms})`);
}

/** A second, bare socket in the page: when completions reach the browser at all (server + network share of the lag). */
const WATCH_SOCKET = (runId: string) => `(() => {
  window.__sock = [];
  let n = 0;
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', runId: ${JSON.stringify(runId)}, afterSeq: 0 }));
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type !== 'deltas') return;
    for (const e of msg.events) if (e.event.type === 'request.completed') n++;
    window.__sock.push([Date.now(), n]);
  };
})()`;

const WATCH_COMPLETED = `(() => {
  window.__seen = [];
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([Math.round(performance.timeOrigin + e.startTime), e.duration]); }).observe({ type: 'longtask' });
  const dd = document.querySelector('[data-testid="count-completed"] dd');
  new MutationObserver(() => window.__seen.push([Date.now(), Number(dd.textContent.replace(/,/g, ''))]))
    .observe(dd, { childList: true, characterData: true, subtree: true });
})()`;

async function storedRun(url: string, page: Page): Promise<void> {
  const runId = `bench-stored-10k-${Date.now()}`;
  const N = 10_000;
  const startedAtMs = Date.now() - 60_000;
  await post(url, '/api/runs/external', { runId, label: 'bench 10k', config: { numPrompts: N, model: 'bench' } });
  let batch: RunEvent[] = [started(runId, N, startedAtMs)];
  for (let i = 0; i < N; i++) {
    batch.push(...requestEvents(i, Math.floor(i / 10) * 40, runId, startedAtMs));
    if (batch.length >= 20_000) {
      await feed(url, runId, batch);
      batch = [];
    }
  }
  const counts = {
    total: N,
    completed: N,
    failed: 0,
    timedOut: 0,
    cancelledAfterTimeout: 0,
    cancelled: 0,
    errored: 0,
    unsent: 0,
  };
  batch.push({
    type: 'run.finished',
    t: 40_500,
    summary: {
      verdict: 'passed',
      verdictReasons: [],
      counts,
      durationS: 40.5,
      breakerTripped: false,
      cause: null,
      metrics: { completed: N, failed: 0, mean_ttft_ms: 58, median_ttft_ms: 58, p99_ttft_ms: 66 },
    },
  });
  await feed(url, runId, batch);
  const events = N * 10 + 3;

  // Two opens: the first warms Chromium's caches of the bundle, the second is measured.
  for (const measured of [false, true]) {
    await page.goto(`${url}/#/`);
    await page.getByTestId('runs-page').waitFor();
    const t0 = Date.now();
    await page.goto(`${url}/#/runs/${runId}`);
    await page.locator('[data-testid="timeline-row"] .seg').first().waitFor({ timeout: 30_000 });
    const drawn = Date.now() - t0;
    await page.locator('[data-testid="run-page"][data-loaded="true"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="timeline-row"][data-status="completed"]').first().waitFor();
    const loaded = Date.now() - t0;
    const shown = (await page.getByTestId('count-completed').locator('dd').textContent())?.replace(/,/g, '');
    if (shown !== String(N)) throw new Error(`the page shows ${shown} completed requests, expected ${N}`);
    if (!measured) continue;
    line(
      `stored 10k run: timeline drawn (${(events / 1000).toFixed(0)}k events)`,
      `${drawn} ms`,
      '< 1500 ms',
      drawn < 1500,
    );
    line('stored 10k run: every event loaded and drawn', `${loaded} ms`, '(info)', true);
  }
  const s = await scrollFps(page, 3000);
  line('stored 10k run: fps while scrolling the timeline', s.fps.toFixed(1), '>= 30', s.fps >= 30);
  console.log(`   (p95 frame ${s.p95FrameMs.toFixed(1)} ms)`);
}

async function liveRun(url: string, page: Page): Promise<void> {
  const runId = `bench-live-${Date.now()}`;
  const RATE = 2000; // events per second
  const SECONDS = 10;
  const TICK = 50;
  const perRequest = 10;
  const total = Math.ceil((RATE * SECONDS) / perRequest);
  const startedAtMs = Date.now();
  await post(url, '/api/runs/external', { runId, label: 'bench live', config: { numPrompts: total, model: 'bench' } });
  await post(url, `/api/runs/${runId}/events`, { events: [started(runId, total, startedAtMs)] });
  await page.goto(`${url}/#/runs/${runId}`);
  await page.locator('[data-testid="run-page"][data-loaded="true"]').waitFor();
  await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor();
  // Record when the rendered "completed" counter changes, in wall-clock ms.
  await page.evaluate(WATCH_COMPLETED);
  await page.evaluate(WATCH_SOCKET(runId));
  // The same subscription from this process: the server's own share of the lag, without the page.
  const nodeSeen: [number, number][] = [];
  const nodeWs = new WebSocket(url.replace('http', 'ws') + '/ws', { headers: { origin: url } });
  let nodeN = 0;
  nodeWs.on('open', () => nodeWs.send(JSON.stringify({ type: 'subscribe', runId, afterSeq: 0 })));
  nodeWs.on('message', (raw) => {
    const msg = JSON.parse(String(raw));
    if (msg.type !== 'deltas') return;
    for (const e of msg.events) if (e.event.type === 'request.completed') nodeN++;
    nodeSeen.push([Date.now(), nodeN]);
  });
  await new Promise((r) => nodeWs.once('open', r));

  // Pre-build the stream; request i's completion is its 10th event.
  const stream: RunEvent[] = [];
  for (let i = 0; i < total; i++)
    stream.push(...requestEvents(i, i * (1000 / (RATE / perRequest)), runId, startedAtMs));
  stream.sort((a, b) => a.t - b.t);
  const completedAt: number[] = []; // wall ms at which the k-th completion was posted
  const perTick = (RATE * TICK) / 1000;
  let next = 0;
  let fps: { fps: number; p95FrameMs: number } | null = null;
  const cdp = process.env.WEB_BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  const t0 = Date.now();
  const posting: Promise<unknown>[] = [];
  for (let tick = 0; next < stream.length; tick++) {
    const due = t0 + tick * TICK;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = stream.slice(next, next + perTick);
    next += batch.length;
    const sentAt = Date.now();
    for (const e of batch) if (e.type === 'request.completed') completedAt.push(sentAt);
    posting.push(feed(url, runId, batch));
    if (tick === Math.floor(5000 / TICK)) fps = await scrollFps(page, 2000); // scroll while the stream goes on
  }
  await Promise.all(posting);
  if (cdp) {
    const { profile } = (await cdp.send('Profiler.stop')) as {
      profile: {
        nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
        samples: number[];
        timeDeltas: number[];
      };
    };
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const n = byId.get(id)!;
      const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
      self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`   ${v.toFixed(0).padStart(6)} ms  ${k}`);
  }
  await page.waitForTimeout(1500);
  const seen = (await page.evaluate('window.__seen')) as [number, number][];
  const longs = (await page.evaluate('window.__long')) as [number, number][];
  const long = longs.map((l) => l[1]);
  console.log(
    `   long tasks on the page: ${long.length}, total ${long.reduce((a, b) => a + b, 0).toFixed(0)} ms, max ${Math.max(0, ...long).toFixed(0)} ms`,
  );
  if (process.env.WEB_BENCH_PROFILE)
    console.log(
      `   long tasks > 150 ms at (s into the drive): ${longs
        .filter((l) => l[1] > 150)
        .map((l) => `${((l[0] - t0) / 1000).toFixed(1)}s:${l[1].toFixed(0)}`)
        .join(' ')}`,
    );
  const lagsOf = (obs: [number, number][]) => {
    const out: number[] = [];
    let j = 0;
    for (let k = 0; k < completedAt.length; k++) {
      while (j < obs.length && obs[j][1] < k + 1) j++;
      if (j < obs.length) out.push(obs[j][0] - completedAt[k]);
    }
    return out;
  };
  const lags = lagsOf(seen);
  nodeWs.close();
  const nodeLags = lagsOf(nodeSeen);
  const sockLags = lagsOf((await page.evaluate('window.__sock')) as [number, number][]);
  const elapsed = (Date.now() - t0 - 1500) / 1000;
  console.log(
    `   live: ${stream.length} events in ${elapsed.toFixed(1)} s (${(stream.length / elapsed).toFixed(0)}/s), ${lags.length}/${completedAt.length} completions seen on the page`,
  );
  line('live: server to a Node client, p50', `${quantile(nodeLags, 0.5).toFixed(0)} ms`, '(info)', true);
  line('live: server to a Node client, p99', `${quantile(nodeLags, 0.99).toFixed(0)} ms`, '(info)', true);
  line('live: socket arrival in the page, p50', `${quantile(sockLags, 0.5).toFixed(0)} ms`, '(info)', true);
  line('live: socket arrival in the page, p99', `${quantile(sockLags, 0.99).toFixed(0)} ms`, '(info)', true);
  // The page's own share: when the page showed completion k minus when the server delivered it to a
  // plain socket client (so the server's batching and ingest are not counted against the page).
  const pageOwn = lags.map((l, k) => l - (nodeLags[k] ?? 0));
  line('live: page lag behind the post, p50', `${quantile(lags, 0.5).toFixed(0)} ms`, '(info)', true);
  line('live: page lag behind the post, p99', `${quantile(lags, 0.99).toFixed(0)} ms`, '(info)', true);
  line('live: page view behind the server, p50', `${quantile(pageOwn, 0.5).toFixed(0)} ms`, '(info)', true);
  line(
    'live: page view behind the server, p99',
    `${quantile(pageOwn, 0.99).toFixed(0)} ms`,
    '< 500 ms',
    quantile(pageOwn, 0.99) < 500 && lags.length === completedAt.length,
  );
  if (fps) {
    line('live: fps while scrolling the timeline', fps.fps.toFixed(1), '>= 30', fps.fps >= 30);
    console.log(`   (p95 frame ${fps.p95FrameMs.toFixed(1)} ms)`);
  }
}

// `--url URL` measures an already running dashboard instead of starting one.
const urlArg = process.argv.indexOf('--url');
ensureWebBuild();
const server = urlArg > 0 ? { url: process.argv[urlArg + 1], stop: async () => {} } : await startServer();
const browser = await launchBrowser({ width: 1280, height: 800 });
try {
  const page = await browser.context.newPage();
  console.log(`web UI benchmarks (headless Chromium 1280×800, server ${server.url})`);
  await storedRun(server.url, page);
  await liveRun(server.url, page);
} finally {
  await browser.close();
  await server.stop();
  console.log(`   total ${((Date.now() - T0) / 1000).toFixed(1)} s`);
}
