/**
 * "Breaker chaos": many fail-fast trips over the matrix servers
 * (test/fixtures/servers/matrix.ts: six server stacks × per-request and
 * keep-alive connections × inf / rate / self-timed dispatch), each a real
 * `stallscope bench` process with its hang position drawn from a seed.
 * Prints the worst wall time from the trip to the process's exit (target
 * < 1 s), the worst server-side socket close after the trip, how many runs
 * needed the per-socket fallback (`cleanup_forced_sockets` > 0; target 0)
 * and how many never ended (killed after 15 s; target 0).
 * STALLSCOPE_CHAOS_RUNS=N changes the number of runs (default 200);
 * STALLSCOPE_CHAOS_PARALLEL=K runs K at a time (default 2).
 */
import {
  CASE_NAMES,
  MATRIX_CASES,
  startMatrixServer,
  type MatrixCase,
  type MatrixServer,
} from '../fixtures/servers/matrix.ts';
import { breakerRun, DISPATCH_MODES, lastCloseAfterTrip, type DispatchMode } from '../helpers/breakerRun.ts';

const RUNS = Number(process.env.STALLSCOPE_CHAOS_RUNS ?? 200);
const PARALLEL = Number(process.env.STALLSCOPE_CHAOS_PARALLEL ?? 2);
const TIMEOUT_S = 0.5;

interface Cell {
  c: MatrixCase;
  keepAlive: boolean;
  dispatch: DispatchMode;
}
const cells: Cell[] = [];
// Servers vary fastest, so even a short run covers every stack.
for (const dispatch of DISPATCH_MODES)
  for (const keepAlive of [false, true]) for (const c of MATRIX_CASES) cells.push({ c, keepAlive, dispatch });

let seed = 12345;
const rand = (n: number): number => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
};

const servers = new Map<MatrixCase, MatrixServer>();
for (const c of MATRIX_CASES) servers.set(c, await startMatrixServer(c));

interface Row {
  cell: Cell;
  tripToExitMs: number;
  lastCloseMs: number;
  forced: number;
  hung: boolean;
  code: number | null;
  /** What a run that did not trip, or did not exit 3, last printed (the reason is in it). */
  tail: string | null;
}
const rows: Row[] = [];
let next = 0;
const started = Date.now();
async function worker(w: number): Promise<void> {
  for (;;) {
    const i = next++;
    if (i >= RUNS) return;
    const cell = cells[i % cells.length];
    const hangFrom = 3 + rand(30);
    const r = await breakerRun({
      server: servers.get(cell.c)!,
      tag: `chaos${w}r${i}x${Date.now() % 100000}`,
      keepAlive: cell.keepAlive,
      dispatch: cell.dispatch,
      hangFrom,
      numPrompts: 50,
      timeoutS: TIMEOUT_S,
      killAfterS: 15,
    });
    const forced = typeof r.result?.cleanup_forced_sockets === 'number' ? r.result.cleanup_forced_sockets : 0;
    rows.push({
      cell,
      tripToExitMs: r.tripAtMs === null ? Infinity : r.exitAtMs - r.tripAtMs,
      lastCloseMs: lastCloseAfterTrip(r),
      forced,
      hung: r.killed,
      code: r.code,
      tail:
        r.tripAtMs === null || r.code !== 3
          ? `run ${i}, cell (${cell.c}) ${cell.keepAlive ? 'keep-alive' : 'per-request'} ${cell.dispatch}, hang from ${hangFrom}: exit ${r.code}\n${lastLines(r.stdout + r.stderr, 12)}`
          : null,
    });
  }
}
await Promise.all(Array.from({ length: PARALLEL }, (_, w) => worker(w)));
await Promise.all([...servers.values()].map((s) => s.close()));

const lastLines = (text: string, n: number): string => text.trimEnd().split('\n').slice(-n).join('\n');
const fmt = (x: number): string => (x === -Infinity ? '-' : Number.isFinite(x) ? x.toFixed(0) : 'never');
const worst = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), -Infinity);
const hung = rows.filter((r) => r.hung).length;
const fallback = rows.filter((r) => r.forced > 0).length;
const notExit3 = rows.filter((r) => r.code !== 3).length;
const worstExit = worst(rows.map((r) => r.tripToExitMs));
const worstClose = worst(rows.map((r) => r.lastCloseMs));
console.log(
  `breaker chaos: ${rows.length} trips over ${cells.length} cells (${MATRIX_CASES.length} servers × 2 connection modes × ${DISPATCH_MODES.length} dispatch modes), ` +
    `timeout ${TIMEOUT_S} s, ${PARALLEL} at a time, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
console.log(
  `   worst wall time from the trip to exit: ${fmt(worstExit)} ms (target < 1000 ms) ${worstExit < 1000 ? 'OK' : 'ABOVE TARGET'}`,
);
console.log(`   worst server-side socket close after the trip: ${fmt(worstClose)} ms (target <= 100 ms)`);
console.log(
  `   runs that needed the per-socket fallback: ${fallback} (target 0) ${fallback === 0 ? 'OK' : 'ABOVE TARGET'}`,
);
console.log(`   runs that never ended (killed after 15 s): ${hung} (target 0); runs not exiting 3: ${notExit3}`);
// A run with no trip or another exit is not a figure: say what it printed, so it can be told apart from a slow one.
for (const r of rows.filter((x) => x.tail !== null).slice(0, 3))
  console.log(`   ${r.tail!.replace(/\n/g, '\n      ')}`);
for (const c of MATRIX_CASES) {
  const mine = rows.filter((r) => r.cell.c === c);
  console.log(
    `   (${c}) ${CASE_NAMES[c].padEnd(46)} runs ${String(mine.length).padStart(3)}  worst trip→exit ${fmt(worst(mine.map((r) => r.tripToExitMs))).padStart(5)} ms` +
      `  worst close ${fmt(worst(mine.map((r) => r.lastCloseMs))).padStart(5)} ms  hung ${mine.filter((r) => r.hung).length}  fallback ${mine.filter((r) => r.forced > 0).length}`,
  );
}
