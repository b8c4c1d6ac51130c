/**
 * A CI fleet's year of history, generated from a seed (`npm run bench boardScale`; docs/design.md#year-of-history):
 * by default 20,000 runs over 365 days, 40 pipelines × 3 steps, 30 nodes, 20 % of runs stalled across 40
 * fingerprints (each stalled run with 1–3 watchdog stall reports of 20–60 frames, some with a first structural
 * timeout too), the rest passed or failed otherwise, each with the `ci_*` metadata a reporter in Buildkite records.
 * The same seed and options give the same runs, byte for byte; `runs` (and the other counts) make small histories
 * for tests.
 *
 * Loaded through the calls `stallscope db import` makes (common/moveRuns.ts: a whole run row, its events with
 * their seqs, its stall reports as stored): 20,000 runs loaded in 61–204 s on SQLite and 80–88 s on PostgreSQL on
 * this two-core machine at load 10–12 (docs/performance.md#year-of-history). Each run's events are its start and
 * its end (the board, the list and retention read rows, evidence and events, not a run's request stream).
 */
import type { RunEvent, RunSummary } from '#shared/protocol/protocol.ts';
import type { ServerStacksReport, StackFrame, WatchdogStallReport } from '#shared/stalls/stallReport.ts';
import { firstTimeout, type FirstTimeout } from '#shared/stalls/stallEvidence.ts';
import { fingerprintColumns } from '#server/dashboard/store/common/effects.ts';
import type { NewRun, RunUpdate, StallRow, StoredEvent } from '#server/dashboard/store/common/records.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { mulberry32 } from '#server/repro/code2wav/kernels/rng.ts';

export interface HistoryOptions {
  seed?: number;
  /** Runs in the year (default 20,000). */
  runs?: number;
  days?: number;
  pipelines?: number;
  stepsPerPipeline?: number;
  nodes?: number;
  fingerprints?: number;
  /** Share of runs with stall evidence (default 0.2). */
  stalledShare?: number;
  /** The newest run happens just before this (epoch ms; default 2026-12-01). */
  endMs?: number;
  /**
   * The board's edge cases too (tests; off by default, so a seed's year stays byte for byte what it was): runs
   * without CI metadata or without `ci_node`, stalled runs with only a timeout, with a second fingerprint, and
   * with a py-spy capture that read a stack or failed (no stack: not evidence).
   */
  variety?: boolean;
}

export interface GeneratedRun {
  run: NewRun;
  update: RunUpdate;
  events: StoredEvent[];
  stalls: StallRow[];
}

const DAY_MS = 86_400_000;
const PHASES = ['hift', 'flow', 'setup', 'vocoder', 'decode'];
const STEPS = ['accuracy', 'throughput', 'streaming', 'realtime', 'long-audio'];

const hex = (rand: () => number, n: number) =>
  Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');

/** The hang's own frames (its fingerprint's top three) for fingerprint `k`: a phase and three functions. */
function hangFrames(k: number): { phase: string; frames: StackFrame[] } {
  const phase = PHASES[k % PHASES.length];
  const fn = (i: number, file: string): StackFrame => ({
    function: `${['_synchronize', 'forward', 'istft', 'decode_chunk', 'conv_step', 'upsample', 'stream_out', 'pad'][(k + i) % 8]}_${k}`,
    file: `/opt/venv/lib/python3.11/site-packages/vllm_omni/model_executor/${file}`,
    line: 100 + k * 7 + i,
    column: 0,
    language: 'python',
  });
  return { phase, frames: [fn(0, 'code2wav/hift.py'), fn(1, 'code2wav/flow.py'), fn(2, 'code2wav/runner.py')] };
}

/** Frames below the hang (the model's call chain and the worker thread's runtime), `n` in all with the hang's. */
function stackOf(k: number, n: number): StackFrame[] {
  const { frames } = hangFrames(k);
  const below: StackFrame[] = [];
  for (let i = 0; below.length < n - frames.length - 3; i++)
    below.push({
      function: i % 2 ? '_call_impl' : '_wrapped_call_impl',
      file: '/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py',
      line: 1500 + i,
      column: 0,
      language: 'python',
    });
  const runtime: StackFrame[] = ['run', '_bootstrap_inner', '_bootstrap'].map((f, i) => ({
    function: f,
    file: '/usr/lib/python3.11/threading.py',
    line: 975 + i * 20,
    column: 0,
    language: 'python',
  }));
  return [...frames, ...below, ...runtime];
}

function summaryOf(verdict: string, total: number, timedOut: number, failed: number): RunSummary {
  const completed = total - failed;
  return {
    verdict,
    verdictReasons:
      verdict === 'passed' ? [] : [timedOut ? `${timedOut} request timed out` : `${failed} requests failed`],
    durationS: 120 + total / 10,
    breakerTripped: timedOut > 0,
    cause: null,
    counts: {
      total,
      completed,
      failed,
      timedOut,
      cancelledAfterTimeout: 0,
      cancelled: 0,
      errored: failed - timedOut,
      unsent: 0,
    },
    metrics: { completed, failed, mean_ttft_ms: 180 },
  } as RunSummary;
}

/** The edge cases of `variety` for one generated run (its metadata and stall rows changed in place). */
function varied(
  rand: () => number,
  g: {
    id: string;
    at: number;
    metadata: Record<string, string>;
    stalls: StallRow[];
    fingerprints: number;
    k: number;
    stalled: boolean;
  },
  setTimeout: (t: FirstTimeout | undefined) => void,
): void {
  const roll = rand();
  if (roll < 0.1) for (const key of Object.keys(g.metadata)) delete g.metadata[key];
  else if (roll < 0.15) delete g.metadata.ci_node;
  if (!g.stalled) return;
  const kind = rand();
  const { phase } = hangFrames(g.k);
  if (kind < 0.2) {
    // Only a timeout: the run's fingerprint is phase-only.
    g.stalls.length = 0;
    setTimeout(firstTimeout(8, `${g.id}-8`, 'total', 64_000, phase));
    return;
  }
  if (kind < 0.4) {
    const k2 = (g.k + 1 + Math.floor(rand() * (g.fingerprints - 1))) % g.fingerprints;
    const second = {
      ...JSON.parse(g.stalls[0].reportJson),
      opId: 90,
      phase: hangFrames(k2).phase,
      stack: stackOf(k2, 24),
    };
    pushReport(g.stalls, second as WatchdogStallReport, 1, 90);
  }
  if (rand() < 0.3) {
    const failed = rand() < 0.5;
    const capture: ServerStacksReport = {
      source: 'py-spy',
      capture: 1,
      reason: { kind: 'first_timeout', requestIndex: 8, requestId: `${g.id}-8`, timeoutKind: 'total', elapsedS: 64 },
      rootPid: 100,
      native: false,
      capturedAtMs: g.at + 61_000,
      durationMs: 800,
      phase,
      inferred: null,
      requestIds: [`${g.id}-8`],
      processes: [],
      stack: failed ? [] : stackOf(g.k, 22),
      ...(failed ? { stackError: 'py-spy: Permission denied (os error 13)' } : {}),
      notes: [],
    };
    pushReport(g.stalls, capture, -1, 1);
  }
}

function pushReport(
  stalls: StallRow[],
  report: WatchdogStallReport | ServerStacksReport,
  workerId: number,
  opId: number,
) {
  const fp = fingerprintColumns(report);
  stalls.push({
    workerId,
    opId,
    seq: 2 + stalls.length,
    phase: report.phase,
    reportJson: JSON.stringify(report),
    recoveredJson: null,
    fingerprint: fp.fingerprint,
    fingerprintJson: fp.json,
  });
}

/** The year, oldest run first; deterministic from the seed and the options. */
export function* generateHistory(o: HistoryOptions = {}): Generator<GeneratedRun> {
  const rand = mulberry32(o.seed ?? 45);
  const runs = o.runs ?? 20_000;
  const days = o.days ?? 365;
  const pipelines = o.pipelines ?? 40;
  const steps = o.stepsPerPipeline ?? 3;
  const nodes = o.nodes ?? 30;
  const fingerprints = o.fingerprints ?? 40;
  const stalledShare = o.stalledShare ?? 0.2;
  const endMs = o.endMs ?? Date.UTC(2026, 11, 1);
  const startMs = endMs - days * DAY_MS;
  const builds = new Map<number, number>();
  for (let i = 0; i < runs; i++) {
    const at = Math.floor(startMs + ((i + rand() * 0.9) / runs) * days * DAY_MS);
    const p = Math.floor(rand() * pipelines);
    const step = STEPS[Math.floor(rand() * steps) % STEPS.length];
    const build = (builds.get(p) ?? 14_000 + p * 1000) + (rand() < 0.6 ? 1 : 0);
    builds.set(p, build);
    const node = `gpu-node-${String(Math.floor(rand() * nodes)).padStart(2, '0')}`;
    const id = `run-${String(i).padStart(6, '0')}-${hex(rand, 6)}`;
    const pipeline = `vllm-omni/nightly-${p}`;
    const metadata: Record<string, string> = {
      ci_provider: 'buildkite',
      ci_build: String(build),
      ci_build_url: `https://buildkite.com/vllm/nightly-${p}/builds/${build}`,
      ci_job: `${hex(rand, 8)}-${hex(rand, 4)}-${hex(rand, 4)}-${hex(rand, 12)}`,
      ci_node: node,
      ci_commit: hex(rand, 40),
      ci_pipeline: pipeline,
      ci_step: step,
    };
    const total = 64 + Math.floor(rand() * 4) * 64;
    const roll = rand();
    const stalled = roll < stalledShare;
    // A fleet's stalls are skewed: a few hangs are most of them (k² spreads them over all fingerprints).
    const k = Math.floor(rand() ** 2 * fingerprints);
    const failedOtherwise = !stalled && roll < stalledShare + 0.1;
    const verdict = stalled ? 'failed_closed' : failedOtherwise ? 'failed' : 'passed';
    const failed = stalled ? 1 + Math.floor(rand() * 4) : failedOtherwise ? 1 + Math.floor(rand() * 8) : 0;
    const timedOut = stalled ? 1 : 0;
    const stalls: StallRow[] = [];
    let first: FirstTimeout | undefined;
    if (stalled) {
      const { phase } = hangFrames(k);
      const reports = 1 + Math.floor(rand() * 3);
      for (let r = 0; r < reports; r++) {
        const opId = 3 + r * 7 + Math.floor(rand() * 5);
        const captured = at + 60_000 + r * 15_000;
        const report: WatchdogStallReport = {
          source: 'watchdog',
          model: 'Qwen/Qwen2.5-Omni-7B',
          workerId: r % 2,
          opId,
          requestIds: [`${id}-${opId * 2}`, `${id}-${opId * 2 + 1}`],
          phase,
          details: { mel_frames: 40 + Math.floor(rand() * 400), batch_size: 2 },
          inPhaseS: 10 + rand() * 20,
          inOpS: 12 + rand() * 20,
          capturedAtMs: captured,
          deadlineMs: captured - 100,
          stack: stackOf(k, 20 + Math.floor(rand() * 41)),
        };
        const fp = fingerprintColumns(report);
        stalls.push({
          workerId: report.workerId,
          opId,
          seq: 2 + r,
          phase,
          reportJson: JSON.stringify(report),
          recoveredJson: null,
          fingerprint: fp.fingerprint,
          fingerprintJson: fp.json,
        });
      }
      if (rand() < 0.5)
        first = firstTimeout(opId2Index(stalls[0].opId), `${id}-${stalls[0].opId * 2}`, 'total', 64_000, phase);
    }
    if (o.variety) varied(rand, { id, at, metadata, stalls, fingerprints, k, stalled }, (t) => (first = t));
    const summary = summaryOf(verdict, total, timedOut, failed);
    const started: RunEvent = {
      type: 'run.started',
      t: 0,
      runId: id,
      startedAtMs: at,
      numRequests: total,
      maxConcurrency: 8,
      requestRate: 'inf',
      failFast: true,
      model: 'Qwen/Qwen2.5-Omni-7B',
      baseUrl: `http://10.0.${Math.floor(rand() * 4)}.${10 + Math.floor(rand() * 200)}:8091`,
    };
    const finished: RunEvent = { type: 'run.finished', t: summary.durationS * 1000, summary };
    yield {
      run: {
        id,
        source: 'cli',
        status: 'finished',
        label: `${pipeline} · ${step} · build ${build} · ${node}`,
        model: 'Qwen/Qwen2.5-Omni-7B',
        target: (started as { baseUrl: string }).baseUrl,
        dataset: 'seed-tts',
        numPrompts: total,
        maxConcurrency: 8,
        requestRate: 'inf',
        failFast: true,
        createdAtMs: at,
        startedAtMs: at,
        metadata,
      },
      update: { verdict, finishedAtMs: at + summary.durationS * 1000, summary, firstTimeout: first },
      events: [
        { seq: 1, json: JSON.stringify(started) },
        { seq: 2 + stalls.length, json: JSON.stringify(finished) },
      ],
      stalls,
    };
  }
}

/** The request a stalled op held first (two requests an op). */
const opId2Index = (opId: number) => opId * 2;

/** Loads the history into a store through `db import`'s calls, `parallel` runs at a time; the runs loaded. */
export async function loadHistory(
  store: DashboardStore,
  o: HistoryOptions = {},
  progress: (n: number) => void = () => undefined,
  parallel = store.kind === 'postgres' ? 8 : 1,
): Promise<number> {
  const it = generateHistory(o);
  let n = 0;
  const worker = async () => {
    for (let next = it.next(); !next.done; next = it.next()) {
      const g = next.value;
      await store.runWrites.insertWhole(g.run, g.update);
      await store.admin.writeEvents(g.run.id, g.events);
      if (g.stalls.length) await store.admin.writeStallRows(g.run.id, g.stalls);
      if (++n % 1000 === 0) progress(n);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return n;
}
