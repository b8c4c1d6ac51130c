/**
 * N `stallscope bench --report-to` processes at once against one dashboard (in this process, so its event loop and
 * its ingest latency are measured here) and a reproduction server, then a check that every run's events were
 * stored exactly once against each CLI's own result file (docs/design.md#team-dashboard). Shared by the load
 * benchmark (test/perf/teamDashboard.bench.ts) and its reduced-size test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '#server/dashboard/app.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { REPO } from './benchChild.ts';
import { threadCpuClock } from './threadCpu.ts';

const BIN = join(REPO, 'bin/stallscope.js');
/** 32 reporters × 1,088 requests end in ~70 s on two cores; a reporter still running after this is stuck. */
const REPORTER_DEADLINE_MS = 15 * 60_000;

export interface FleetFigures {
  seconds: number;
  ingestMs: { p50: number; p99: number; max: number; batches: number };
  loopDelayMs: { p99: number; max: number };
  /** The longest loop stall of the dashboard's own work: the most main-thread CPU in one stall, and that stall's wall. */
  ownStallMs: { cpu: number; wall: number };
  /** Runs whose stored events, rows and counts match their CLI's result file. */
  exact: number;
  problems: string[];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

export function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  // A fleet's reporters run on their own nodes; here 32 of them share two cores with the dashboard, so they yield
  // to it and the dashboard's figures are its own, not the scheduler's.
  if (child.pid !== undefined) setPriority(child.pid, 19);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // A reporter that never ends is killed (and fails its run's check) rather than holding the bench forever.
  const deadline = setTimeout(() => child.kill('SIGKILL'), REPORTER_DEADLINE_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, out });
    }),
  );
}

/** `stallscope bench` arguments of reporter `k` of a fleet: its result file `node-<k>.json`, metadata `node=node-<k>`. */
export function reporterArgs(target: string, requests: number, dir: string, k: number, reportTo: string): string[] {
  return [
    'bench',
    ...['--base-url', target, '--endpoint', '/v1/chat/completions', '--model', 'openbmb/MiniCPM-o-4_5'],
    ...['--dataset-name', 'random', '--random-input-len', '16', '--random-output-len', '16'],
    ...['--num-prompts', String(requests), '--max-concurrency', '10'],
    ...['--request-rate', 'inf', '--num-warmups', '0', '--percentile-metrics', 'ttft,e2el,audio_ttfp'],
    ...['--extra-body', '{"modalities":["text","audio"]}', '--save-result', '--result-dir', dir],
    ...['--result-filename', `node-${k}.json`, '--metadata', `node=node-${k}`, '--report-to', reportTo],
  ];
}

/**
 * Whether reporter `k`'s run is stored exactly once (events 1..N with no gap, a row per request that ended, its
 * counts) against its CLI's result file; a sentence saying what differs otherwise.
 */
export async function checkReportedRun(store: DashboardStore, dir: string, k: number): Promise<string | null> {
  const file = JSON.parse(readFileSync(join(dir, `node-${k}.json`), 'utf8')) as { completed: number; failed: number };
  const [listed] = (await store.runReads.list({ limit: 2, offset: 0, metadata: [['node', `node-${k}`]] })).runs;
  const run = listed && (await store.runReads.get(listed.id));
  const events = run ? await store.runReads.eventsAfter(run.id, 0, 10_000_000) : [];
  const rows = run ? (await store.runReads.requests(run.id, 0, 1)).total : 0;
  const contiguous = events.every((e, i) => e.seq === i + 1) && events.length === run?.lastSeq;
  if (run && contiguous && rows === file.completed + file.failed && run.counts.completed === file.completed)
    return null;
  const types = new Map<string, number>();
  for (const e of events) {
    const type = (JSON.parse(e.json) as { type: string }).type;
    types.set(type, (types.get(type) ?? 0) + 1);
  }
  const perType = [...types].map(([t, n]) => `${t} ${n}`).join(', ');
  const dropped = run?.droppedEvents ? `, ${run.droppedEvents} dropped (${run.droppedError})` : '';
  return `node-${k}: ${run ? `${events.length} events to seq ${run.lastSeq} (${perType}), ${rows} rows, ${run.counts.completed} completed${dropped}` : 'no run'} vs file ${file.completed}+${file.failed}`;
}

/**
 * Watches this thread's loop every 5 ms: a stall's own CPU (threadCpu.ts) tells the dashboard's work from waiting
 * for a core. Returns the stall with the most own CPU.
 */
export function ownStalls(): { stop(): { cpu: number; wall: number } } {
  const cpu = threadCpuClock();
  let worst = { cpu: 0, wall: 0 };
  let last = performance.now();
  let lastCpu = cpu();
  const timer = setInterval(() => {
    const now = performance.now();
    const used = cpu();
    const own = (used - lastCpu) * 1000;
    if (now - last > 10 && own > worst.cpu) worst = { cpu: own, wall: now - last };
    last = now;
    lastCpu = used;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      cpu.close();
      return worst;
    },
  };
}

export async function reporterFleet(
  opts: { dataDir: string | null; database: string | null },
  target: string,
  reporters: number,
  requests: number,
): Promise<FleetFigures> {
  const app = await buildApp({ ...opts, logger: false });
  const ingestMs: number[] = [];
  app.addHook('onResponse', async (req, reply) => {
    if (req.method === 'POST' && req.url.endsWith('/events')) ingestMs.push(reply.elapsedTime);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-fleet-'));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const t0 = performance.now();
  const children = Array.from({ length: reporters }, (_, k) => runCli(reporterArgs(target, requests, dir, k, url)));
  // Spawning 32 processes blocks this thread for ~250 ms: the bench's own start, not the dashboard's.
  loop.enable();
  const stalls = ownStalls();
  const results = await Promise.all(children);
  const s = (performance.now() - t0) / 1000;
  loop.disable();
  const ownStallMs = stalls.stop();
  let exact = 0;
  const problems: string[] = [];
  for (let k = 0; k < reporters; k++) {
    if (results[k].code !== 0) problems.push(`node-${k}: exit ${results[k].code}: ${results[k].out.slice(-300)}`);
    const problem = await checkReportedRun(app.store, dir, k);
    if (problem === null) exact++;
    else problems.push(problem);
  }
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    seconds: s,
    ingestMs: {
      p50: pct(ingestMs, 50),
      p99: pct(ingestMs, 99),
      max: Math.max(0, ...ingestMs),
      batches: ingestMs.length,
    },
    loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    ownStallMs,
    exact,
    problems,
  };
}

/** A reproduction server (fast: many short requests) as a child process; its URL once it answers. */
export async function startFastRepro(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, 'repro-server', '--port', String(port), '--token-rate', '2000', '--cfm-steps', '2', '--max-batch', '16'],
    { cwd: REPO, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the reproduction server did not answer within 20 s');
}
