/**
 * The TTY progress bar of `stallscope bench`: done, failed (every request
 * that did not complete, timeouts among them, as the run's counts say), timed
 * out, in flight. The requests are folded by the one request fold and counted
 * by the one counting rule (shared/requests/requestLifecycle.ts, shared/requests/outcomes.ts),
 * as the dashboard counts them. Before the run, a Seed-TTS dataset's
 * download from the Hub has its own bar. Only on a TTY: piped output (CI
 * logs) stays clean.
 */
import { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { BenchEvent } from '../../shared/protocol/protocol.ts';
import { emptyCounts } from '../../shared/requests/outcomes.ts';
import { LiveRequests } from '../../shared/requests/liveRequests.ts';
import { isRequestEvent, type RequestTally } from '../../shared/requests/requestLifecycle.ts';
import type { DownloadProgress } from '../engine/datasets/hub/hubDownload.ts';

export interface Progress {
  onEvent(e: BenchEvent): void;
  onDownload(p: DownloadProgress): void;
  stop(): void;
}

/** The download's bar: files and megabytes of the locale folder; `stop` also ends one a failed download left. */
function downloadBar(stream: NodeJS.WriteStream): { update: (p: DownloadProgress) => void; stop: () => void } {
  let bar: cliProgress.SingleBar | null = null;
  const stop = (): void => {
    bar?.stop();
    bar = null;
  };
  const update = (p: DownloadProgress): void => {
    const payload = { files: `${p.filesDone}/${p.files}`, mb: (p.bytesDone / 1e6).toFixed(1) };
    if (!bar) {
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${p.repoId} ${p.locale}/ {bar} {mb}/${(p.bytes / 1e6).toFixed(1)} MB | files {files}`,
          hideCursor: true,
          clearOnComplete: false,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(1, p.bytes), 0, payload);
    }
    bar.update(p.bytesDone, payload);
    if (p.done) stop();
  };
  return { update, stop };
}

const RUN_BAR = {
  format: '{bar} {value}/{total} | done {done} failed {failed} (timed out {timedOut}) in flight {inFlight}',
  hideCursor: true,
  clearOnComplete: false,
  fps: 10,
};

/**
 * The bar's first draw costs the main thread 20–25 ms (string-width, which
 * measures the line, builds its emoji expression on its first call), and the
 * run's bar first draws at `run.started`, the clock's start, just before the
 * first wave is sent: that block was the worst of a run's first second
 * (docs/design.md#first-wave). So a throwaway bar is drawn once here, before
 * the run, into a sink that claims to be a terminal.
 */
function warmDraw(): void {
  const sink = Object.assign(new Writable({ write: (_chunk, _enc, done) => done() }), { isTTY: true, columns: 120 });
  const bar = new cliProgress.SingleBar({ ...RUN_BAR, stream: sink }, cliProgress.Presets.shades_classic);
  const payload = { done: 0, failed: 0, timedOut: 0, inFlight: 0 };
  bar.start(2, 0, payload);
  bar.update(1, payload);
  bar.stop();
}

export function createProgress(stream: NodeJS.WriteStream): Progress | null {
  if (!stream.isTTY) return null;
  warmDraw();
  const bar = new cliProgress.SingleBar({ ...RUN_BAR, stream }, cliProgress.Presets.shades_classic);
  const tally: RequestTally = { counts: emptyCounts(), inFlight: 0 };
  const live = new LiveRequests(tally);
  const shown = () => ({
    done: tally.counts.completed,
    failed: tally.counts.failed,
    timedOut: tally.counts.timedOut,
    inFlight: tally.inFlight,
  });
  let started = false;
  // The Seed-TTS gate's own bar, after the benchmark's (accuracy.* events).
  let asr: cliProgress.SingleBar | null = null;
  const a = { evaluated: 0, excluded: 0 };
  const download = downloadBar(stream);
  return {
    onDownload: download.update,
    onEvent(e) {
      if (isRequestEvent(e)) {
        const step = live.apply(e);
        if (started && step && (step.inFlight !== 0 || step.ended))
          bar.update(tally.counts.completed + tally.counts.failed, shown());
        return;
      }
      switch (e.type) {
        case 'run.started':
          bar.start(e.numRequests, 0, shown());
          started = true;
          return;
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
    },
    stop() {
      download.stop();
      if (started) bar.stop();
      asr?.stop();
    },
  };
}
