/**
 * Server-stacks capture time: a real Python server of 3 processes
 * × 20 threads (a parent and two multiprocessing children, each thread
 * blocked a few frames deep), captured with one `py-spy dump` per process
 * concurrently, with and without --native. Target: under 500 ms without
 * native frames. Prints the median and the worst of several captures.
 */
import { spawn } from 'node:child_process';
import { captureTree } from '#server/engine/probes/serverStacks/capture.ts';
import { loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';
import { PY_SPY, PYTHON, requireTool } from '../helpers/omniFixture.ts';

const RUNS = Number(process.env.STALLSCOPE_BENCH_RUNS ?? 7);
const SCRIPT = `
import multiprocessing as mp, threading, sys, time, os
def hift_wait(ev): ev.wait()
def decode(ev, depth):
    if depth: return decode(ev, depth - 1)
    hift_wait(ev)
def threads():
    ev = threading.Event()
    for i in range(19):
        threading.Thread(target=decode, args=(ev, i % 7), name=f"worker-{i}", daemon=True).start()
def child(parent):
    threads()
    while os.getppid() == parent:  # exits with its parent, even one killed by SIGKILL
        time.sleep(0.2)
if __name__ == "__main__":
    ctx = mp.get_context("fork")
    kids = [ctx.Process(target=child, args=(os.getpid(),), daemon=True) for _ in range(2)]
    for k in kids: k.start()
    threads()
    time.sleep(1.0)
    print("ready", flush=True)
    sys.stdin.read()
`;

async function main(): Promise<void> {
  requireTool(PYTHON, 'python (.venv)');
  requireTool(PY_SPY, 'py-spy (.venv)');
  const proc = spawn(PYTHON, ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((r) => proc.stdout!.once('data', () => r()));
  const rules = loadPhaseRules();
  try {
    for (const native of [false, true]) {
      const times: number[] = [];
      let shape = '';
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const r = await captureTree(
          { pySpy: PY_SPY, rootPid: proc.pid!, native, rules },
          { capture: 1, reason: { kind: 'no_progress', afterS: 1, silentS: 1 }, requestIds: [] },
        );
        times.push(performance.now() - t0);
        const errs = r.processes.filter((p) => p.error).map((p) => p.error!.message);
        if (errs.length) throw new Error(errs.join('; '));
        shape = `${r.processes.length} processes × ${r.processes.map((p) => p.threads.length).join('/')} threads`;
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      const target = native ? '' : ` (target < 500 ms: ${median < 500 ? 'met' : 'MISSED'})`;
      console.log(
        `capture ${shape}${native ? ' --native' : ''}: median ${median.toFixed(0)} ms, worst ${times[times.length - 1].toFixed(0)} ms over ${RUNS}${target}`,
      );
    }
  } finally {
    proc.kill('SIGKILL');
  }
}

await main();
