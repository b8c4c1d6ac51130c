/**
 * The Seed-TTS gate's memory and speed: N answers of 10 s of
 * 24 kHz audio each (the nightly job's 1,088 × ~10 s is over 500 MB of PCM)
 * from a target in a child process, spooled to disk during the run, then
 * resampled, uploaded and scored against a loopback transcription server.
 * Prints the PCM the run produced, what the client still holds once every
 * answer is in (forced GC; target: a few MB, not the PCM), its peak memory
 * growth (garbage included), and the evaluation's rate. STALLSCOPE_BENCH_FULL=1 runs N = 1,088.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { groupedConfig } from '#test/helpers/benchConfig.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../helpers/serverProcess.ts';
import { startFakeAsr } from '../helpers/fakeAsr.ts';
import { makeWav } from '../helpers/wav.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A forced GC tells what the run still holds (retained), apart from garbage not yet collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const N = process.env.STALLSCOPE_BENCH_FULL === '1' ? 1088 : 300;
const CHUNKS = 100; // 100 chunks of 2,400 samples = 10 s at 24 kHz
const MB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'stallscope-wer-bench-'));
mkdirSync(join(dir, 'en', 'prompt-wavs'), { recursive: true });
writeFileSync(join(dir, 'en', 'prompt-wavs', 'p.wav'), makeWav(240));
writeFileSync(
  join(dir, 'en', 'meta.lst'),
  Array.from({ length: N }, (_, i) => `u${i}|p|prompt-wavs/p.wav|w1 w2 w3 w4 sentence ${i}`).join('\n'),
);

const server = await startServerProcess({ rest: { kind: 'ok', tokens: 5, audioChunks: CHUNKS } });
const asr = await startFakeAsr(() => ({ text: 'w1 w2 w3 w4 sentence' }));
gc();
const mem = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const base = mem();
const baseRss = process.memoryUsage().rss;
let peak = base;
let peakRss = baseRss;
const sampler = setInterval(() => {
  peak = Math.max(peak, mem());
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);
let evalStart = 0;
let retainedAtEnd = 0;
const t0 = performance.now();
const out = await runBenchmark(
  groupedConfig({
    runId: 'werbench',
    baseUrl: server.url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'm',
    dataset: { name: 'seed-tts', path: dir, locale: 'en', noOversample: true },
    numPrompts: N,
    maxConcurrency: 10,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['e2el'],
    metricPercentiles: [99],
    timeouts: { totalS: 60 },
    failFast: true,
    thresholds: [],
    save: null,
    seedTtsEval: { asrUrl: asr.url, asrModel: 'fake', asrConcurrency: 4, saveItems: false },
  }),
  {
    onEvent: (e) => {
      if (e.type !== 'accuracy.started') return;
      // Every answer is in; what the run holds now is what it would hold at any N if audio stayed in memory.
      gc();
      retainedAtEnd = mem() - base;
      evalStart = performance.now();
    },
  },
);
const t1 = performance.now();
clearInterval(sampler);
const pcmMB = (Number(out.result.total_audio_frames) * 2) / MB;
console.log(
  `requests: ${N}, evaluated ${String(out.result.seed_tts_content_evaluated)}, verdict ${out.summary.verdict}`,
);
console.log(`PCM produced by the run: ${pcmMB.toFixed(0)} MB`);
console.log(
  `retained after the benchmark (forced GC, all audio received): ${(retainedAtEnd / MB).toFixed(1)} MB ` +
    `(${((100 * retainedAtEnd) / MB / pcmMB).toFixed(1)}% of the PCM: the audio is on disk, not in memory)`,
);
console.log(
  `peak client memory growth (heap + array buffers): ${((peak - base) / MB).toFixed(0)} MB ` +
    `(garbage included); peak RSS growth ${((peakRss - baseRss) / MB).toFixed(0)} MB`,
);
console.log(
  `benchmark ${((evalStart - t0) / 1000).toFixed(1)} s; evaluation ${((t1 - evalStart) / 1000).toFixed(1)} s ` +
    `(${(N / ((t1 - evalStart) / 1000)).toFixed(1)} utterances/s at ASR concurrency 4, resampling + WAV + upload + scoring)`,
);
await asr.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
