/**
 * Everything a run does before its benchmark clock starts, in vLLM's order:
 * the ready check (`--ready-check-timeout-sec`), the warmup requests
 * (`--num-warmups`), the traffic lines; then, only for a run that starts,
 * keep-alive's pre-opened first wave (opened first, awaited last), the
 * client's own warm-up and V8's settling (warm/).
 */
import { readyCheck, runWarmups } from '../warmup/warmup.ts';
import { warmClient } from '../warmup/warmClient.ts';
import { settleBackground } from '../warmup/settle.ts';
import { trafficLines } from '../schedule/traffic.ts';
import type { RunSetup } from './runSetup.ts';

/** At most this many first-wave bodies are built before the clock (a few MB of 1,024-word prompts). */
const FIRST_WAVE_PREBUILT = 1024;

/** Distinct requests of the run the client warm-up cycles through. */
const WARM_JOBS = 8;

interface ClockReady {
  /** Why the run cannot start (the target never answered the ready check), or null. */
  errored: string | null;
  /** The timed run starts: not errored and not interrupted. */
  starts: boolean;
}

export async function beforeClock(r: RunSetup, warmTheClient: boolean): Promise<ClockReady> {
  const { config, log, interrupt, target } = r;
  let errored: string | null = null;
  log('Starting initial single prompt test run...');
  if (config.dispatch.readyCheckTimeoutS && config.dispatch.readyCheckTimeoutS > 0) {
    errored = await readyCheck(
      target,
      config.dispatch.readyCheckTimeoutS,
      (k) => r.job(0, `${config.runId}-ready-${k}`),
      interrupt,
      log,
    );
    // Stopped by a signal while checking: that is an interruption, not an unreachable target.
    if (interrupt.aborted) errored = null;
    if (!errored) log(interrupt.aborted ? 'Interrupted during the ready check.' : 'Initial test run completed.');
  } else log('Skipping endpoint ready check.');
  if (!errored && config.dispatch.numWarmups > 0 && !interrupt.aborted) {
    log(`Warming up with ${config.dispatch.numWarmups} requests...`);
    const ok = await runWarmups(
      target,
      config.dispatch.numWarmups,
      config.dispatch.maxConcurrency,
      (i) => r.job(0, `${config.runId}-warmup-${i}`),
      interrupt,
    );
    log('Warmup run completed.');
    if (ok < config.dispatch.numWarmups)
      log(`(${config.dispatch.numWarmups - ok} of ${config.dispatch.numWarmups} warmup requests did not complete)`);
  }
  const starts = !errored && !interrupt.aborted;
  if (starts) {
    log('Starting main benchmark run...');
    for (const line of trafficLines(config)) log(line);
  }
  // Keep-alive with a burst start: the first wave's connections are opened before the clock
  // (RunConnections.preconnect), so its TTFT holds no handshakes the later waves never pay. Only a burst: a
  // ramp-up or a self-timed trace keeps request rate inf but paces its start. Opened before the warm-up, not after
  // it: a handshake completes in the server's kernel before its process has accepted the connection, and the
  // first wave sent at once onto connections a busy server had not accepted yet waited for those accepts
  // (docs/performance.md#preconnect).
  const preconnected =
    starts && r.connections.mode === 'keep_alive' && r.arrivals.mode === 'immediate' && config.dispatch.maxConcurrency
      ? r.connections.preconnect(Math.min(r.n, config.dispatch.maxConcurrency), interrupt)
      : null;
  // A connection per request: the first wave's socket objects made now, its connects in the run (prepareSockets);
  // not for a backend with its own attempt (realtime: its own WebSockets).
  if (starts && r.arrivals.mode === 'immediate' && config.dispatch.maxConcurrency && !r.target.attempt)
    r.connections.prepareSockets(Math.min(r.n, config.dispatch.maxConcurrency));
  const warmed =
    starts &&
    warmTheClient &&
    r.backend.warmsWithRecordedChat &&
    (await warmClient({
      // The run's first requests in turn, not the first alone: their data differ (seeds, lengths) as the run's do,
      // so the code optimised for them is not deoptimised by the first wave's values (docs/design.md#first-wave).
      job: (i) => r.job(i % Math.min(r.n, WARM_JOBS), `${config.runId}-warm-${i}`),
      target,
      maxConcurrency: config.dispatch.maxConcurrency,
      signal: interrupt,
    }));
  // Then V8's own threads finish optimising what the warm-up made hot (settle.ts); the warm-up did the
  // full collection itself, between its two passes (warmClient.ts), so the settle does not collect again.
  if (warmed) await settleBackground({ signal: interrupt, gc: () => undefined });
  await preconnected;
  // The first wave's bodies, built now as vLLM builds every prompt before its run: a burst start sends
  // them back to back, and building them there (a 1,024-word prompt each) held the loop at the clock's start.
  if (starts && r.arrivals.mode === 'immediate')
    await r.prebuild(Math.min(config.dispatch.maxConcurrency ?? FIRST_WAVE_PREBUILT, FIRST_WAVE_PREBUILT));
  return { errored, starts };
}
