/**
 * The TTY progress bar of `stallscope bench` (done / failed / timed out /
 * in flight). Only on a TTY: piped output (CI logs) stays clean.
 */
import cliProgress from 'cli-progress';
import type { BenchEvent } from '../../shared/protocol.ts';

export interface Progress {
  onEvent(e: BenchEvent): void;
  stop(): void;
}

export function createProgress(stream: NodeJS.WriteStream): Progress | null {
  if (!stream.isTTY) return null;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {value}/{total} | done {done} failed {failed} timed out {timedOut} in flight {inFlight}',
      hideCursor: true,
      clearOnComplete: false,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  const s = { done: 0, failed: 0, timedOut: 0, inFlight: 0 };
  let started = false;
  // The Seed-TTS gate's own bar, after the benchmark's (accuracy.* events).
  let asr: cliProgress.SingleBar | null = null;
  const a = { evaluated: 0, excluded: 0 };
  return {
    onEvent(e) {
      switch (e.type) {
        case 'run.started':
          bar.start(e.numRequests, 0, s);
          started = true;
          return;
        case 'request.sent':
          if (e.attempt === 1) s.inFlight++;
          break;
        case 'request.completed':
          s.done++;
          s.inFlight--;
          break;
        case 'request.failed':
        case 'request.cancelled':
          s.failed++;
          s.inFlight--;
          break;
        case 'request.timed_out':
          s.timedOut++;
          s.inFlight--;
          break;
        case 'request.not_dispatched':
          s.failed++;
          break;
        case 'accuracy.started':
          if (started) bar.stop();
          started = false;
          asr = new cliProgress.SingleBar(
            {
              stream,
              format: 'WER eval {bar} {value}/{total} | evaluated {evaluated} excluded {excluded}',
              hideCursor: true,
              clearOnComplete: false,
              fps: 10,
            },
            cliProgress.Presets.shades_classic,
          );
          asr.start(e.total, 0, a);
          return;
        case 'accuracy.item':
          if (e.wer !== null) a.evaluated++;
          else a.excluded++;
          asr?.update(a.evaluated + a.excluded, a);
          return;
        default:
          return;
      }
      if (started) bar.update(s.done + s.failed + s.timedOut, s);
    },
    stop() {
      if (started) bar.stop();
      asr?.stop();
    },
  };
}
