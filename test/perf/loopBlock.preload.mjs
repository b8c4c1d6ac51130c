/**
 * Preloaded (`node --import`) into a `stallscope bench` process by
 * loopBlock.ts: watches the main thread's event loop through the first second
 * of the run's clock and, at exit, writes what it saw to $STALLSCOPE_LOOP_OUT
 * (JSON): the worst block (ms, when it began, ms after the clock's start, and the main thread's CPU ms in it)
 * from a 1 ms probe, monitorEventLoopDelay's max over the same second, and
 * every block over 5 ms. The clock's start is the engine's own
 * (RunEvents.startClock, its last call: the client warm-up calls it too).
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
const { RunEvents } = await import(new URL('../../dist/server/engine/events.js', import.meta.url).href);
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
  histogram.reset();
  histogram.enable();
  let last = clockAt;
  let lastCpu = threadCpuMs();
  probe = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    if (now - last > 2) blocks.push({ at: last - clockAt, ms: now - last - 1, cpuMs: cpu - lastCpu });
    last = now;
    lastCpu = cpu;
    if (now - clockAt >= 1000) {
      clearInterval(probe);
      histogram.disable();
    }
  }, 1);
  return startClock.apply(this, args);
};
process.on('exit', () => {
  if (!out) return;
  const worst = blocks.reduce((w, b) => (b.ms > w.ms ? b : w), { at: 0, ms: 0, cpuMs: 0 });
  writeFileSync(
    out,
    JSON.stringify({
      clocked,
      clockHrUs,
      worstMs: worst.ms,
      worstAtMs: worst.at,
      worstCpuMs: worst.cpuMs,
      delayMaxMs: histogram.max / 1e6,
      over5: blocks.filter((b) => b.ms > 5),
    }),
  );
});
