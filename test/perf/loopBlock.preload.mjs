/**
 * Preloaded (`node --import`) into a `stallscope bench` process by
 * loopBlock.ts: watches the main thread's event loop through the first second
 * of the run's clock and, at exit, writes what it saw to $STALLSCOPE_LOOP_OUT
 * (JSON): the worst block (ms, when it began, ms after the clock's start, and the main thread's CPU ms in it)
 * from a 1 ms probe, monitorEventLoopDelay's max over the same second, and
 * every block over 5 ms. The clock's start is the engine's own
 * (RunEvents.startClock, its last call: the client warm-up calls it too).
 * Blocks that begin after the last request ended (RunEvents.end) are the
 * result's computation — no request is in flight to be delayed — and are
 * reported apart (`after`): a short run ends within its first second.
 * With STALLSCOPE_LOOP_TTY=1 stderr claims to be a terminal, so the progress
 * bar draws as it does for a user at a terminal.
 */
import { openSync, readSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.STALLSCOPE_LOOP_OUT;
if (process.env.STALLSCOPE_LOOP_TTY === '1') {
  process.stderr.isTTY = true;
  process.stderr.columns = 120;
  process.stderr.rows = 40;
  process.stderr.cursorTo = (x, y, cb) => process.stderr.write(`\x1b[${x + 1}G`, cb);
  process.stderr.clearLine = (dir, cb) => process.stderr.write('\x1b[2K', cb);
  process.stderr.moveCursor = (dx, dy, cb) => process.stderr.write('', cb);
  process.stderr.clearScreenDown = (cb) => process.stderr.write('\x1b[0J', cb);
}
const { RunEvents } = await import(new URL('../../dist/server/engine/records/events.js', import.meta.url).href);
// The main thread's own CPU time (Linux schedstat, ns on a CPU): a block with little of it was the machine
// (the thread waited for a core), one with all of it was this process's own work.
const statFd = (() => {
  try {
    return openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return -1;
  }
})();
const statBuf = Buffer.alloc(128);
const threadCpuMs = () =>
  statFd < 0 ? NaN : Number(statBuf.toString('latin1', 0, readSync(statFd, statBuf, 0, 128, 0)).split(' ')[0]) / 1e6;
let clockAt = 0;
let clockHrUs = 0;
let clocked = false;
/** The last request's end: when (ms after the clock's start) and the main thread's CPU then. */
let lastEnd = { at: Infinity, cpu: 0 };
const blocks = [];
const histogram = monitorEventLoopDelay({ resolution: 1 });
let probe = null;
const startClock = RunEvents.prototype.startClock;
RunEvents.prototype.startClock = function (...args) {
  // Each call starts the watch afresh: the last one is the run's.
  clocked = true;
  clockAt = performance.now();
  clockHrUs = Number(process.hrtime.bigint() / 1000n);
  clearInterval(probe);
  blocks.length = 0;
  lastEnd = { at: Infinity, cpu: 0 };
  histogram.reset();
  histogram.enable();
  let last = clockAt;
  let lastCpu = threadCpuMs();
  probe = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    if (now - last > 2) blocks.push({ at: last - clockAt, ms: now - last - 1, cpuMs: cpu - lastCpu, cpu0: lastCpu });
    last = now;
    lastCpu = cpu;
    if (now - clockAt >= 1000) {
      clearInterval(probe);
      histogram.disable();
    }
  }, 1);
  return startClock.apply(this, args);
};
const end = RunEvents.prototype.end;
RunEvents.prototype.end = function (...args) {
  if (clocked) lastEnd = { at: performance.now() - clockAt, cpu: threadCpuMs() };
  return end.apply(this, args);
};
const worstOf = (bs) => bs.reduce((w, b) => (b.ms > w.ms ? b : w), { at: 0, ms: 0, cpuMs: 0 });
process.on('exit', () => {
  if (!out) return;
  // The block in which the last request ended is split there: the last response's handling runs on into the
  // result's computation in the same task.
  const during = [];
  const afterEnd = [];
  for (const b of blocks) {
    if (b.at + b.ms <= lastEnd.at) during.push(b);
    else if (b.at >= lastEnd.at) afterEnd.push(b);
    else {
      during.push({ at: b.at, ms: lastEnd.at - b.at, cpuMs: lastEnd.cpu - b.cpu0 });
      afterEnd.push({ at: lastEnd.at, ms: b.at + b.ms - lastEnd.at, cpuMs: b.cpu0 + b.cpuMs - lastEnd.cpu });
    }
  }
  const worst = worstOf(during);
  const after = worstOf(afterEnd);
  writeFileSync(
    out,
    JSON.stringify({
      clocked,
      clockHrUs,
      worstMs: worst.ms,
      worstAtMs: worst.at,
      worstCpuMs: worst.cpuMs,
      lastEndAtMs: lastEnd.at,
      after,
      delayMaxMs: histogram.max / 1e6,
      over5: blocks.filter((b) => b.ms > 5),
    }),
  );
});
