/**
 * stallscope's own transcription server (python/asr_server.py) as the run
 * owns it (docs/design.md#local-asr): its Python checked before anything is
 * sent, its failure to start shown with its stderr (and every answer then
 * fails to be transcribed), its stop bounded by a deadline. Real processes:
 * in the `realtime` project. The transcripts themselves are proven by the
 * nightly command line's test (test/server/cli/nightly.rt.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupedConfig } from '#test/helpers/benchConfig.ts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLocalAsr, LocalAsrServer } from '#server/engine/accuracy/localAsr.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { StallscopeError } from '#shared/errors.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { DONE, roleEvent, sse, textEvent, usageEvent } from '#test/helpers/sse.ts';
import { makeWav } from '#test/helpers/wav.ts';
import { venvPython } from '#test/helpers/tools.ts';

let dir: string;
let target: TestServer | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-localasr-'));
});
afterEach(async () => {
  await target?.close();
  target = null;
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<StallscopeError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(StallscopeError);
  return e as StallscopeError;
}

describe("the recogniser's Python, checked when the run starts", () => {
  it('Chinese needs funasr and zhconv: without them, refused in one line naming them', async () => {
    const python = venvPython('the local transcription server test');
    const e = await refusal(checkLocalAsr({ python, language: 'zh' }));
    expect(e.code).toBe('CONFIG_ASR_PYTHON');
    expect(e.exitCode).toBe(2);
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(/missing Python packages in .*: funasr \(ModuleNotFoundError[^)]*\); zhconv \(/);
    expect(e.message).not.toMatch(/torch \(|transformers \(/);
    // The same Python has what English needs.
    await expect(checkLocalAsr({ python, language: 'en' })).resolves.toBeUndefined();
  }, 120_000);

  it('a Python that does not exist is refused, naming --asr-python', async () => {
    const e = await refusal(checkLocalAsr({ python: join(dir, 'no-python'), language: 'en' }));
    expect(e.message).toMatch(/--asr-python '.*no-python' was not found/);
  });
});

describe('the transcription server, owned by the run', () => {
  it('stopped with a deadline: one that ignores SIGTERM and its closed stdin is killed past it', async () => {
    // A stand-in "Python" that reports a URL, then ignores everything but SIGKILL.
    const fake = join(dir, 'stubborn-python');
    writeFileSync(
      fake,
      `#!/bin/sh\ntrap '' TERM\necho "listening on http://127.0.0.1:9"\nexec 0<&-\nwhile :; do sleep 0.1; done\n`,
      { mode: 0o755 },
    );
    const lines: string[] = [];
    const server = await LocalAsrServer.start({
      python: fake,
      model: 'm',
      language: 'en',
      startTimeoutS: 10,
      stopTimeoutS: 0.5,
      log: (l) => lines.push(l),
    });
    expect(server.url).toBe('http://127.0.0.1:9');
    const t0 = performance.now();
    await server.stop();
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5000);
    expect(lines).toContain('transcription server: still running 0.5 s after SIGTERM; killed');
  });

  it('one that cannot load its model: the run goes on, every answer fails to be transcribed, its stderr is shown', async () => {
    const root = join(dir, 'seed');
    mkdirSync(join(root, 'en', 'prompt-wavs'), { recursive: true });
    writeFileSync(join(root, 'en', 'prompt-wavs', 'p.wav'), makeWav(240));
    writeFileSync(join(root, 'en', 'meta.lst'), 'u0|p|prompt-wavs/p.wav|one\nu1|p|prompt-wavs/p.wav|two\n');
    const audio = sse({
      choices: [{ index: 0, delta: { content: makeWav(4800).toString('base64') } }],
      modality: 'audio',
    });
    target = await startSseServer(() => ({
      kind: 'raw',
      chunks: [roleEvent(), textEvent('x', 1), audio, usageEvent(1), DONE],
    }));
    const missing = join(dir, 'no-such-model');
    const config: RunConfig = groupedConfig({
      runId: 'local',
      baseUrl: target.url,
      endpoint: '/v1/chat/completions',
      backend: 'openai-chat-omni',
      model: 'm',
      dataset: { name: 'seed-tts', path: root, locale: 'en', noOversample: true, disableShuffle: true },
      numPrompts: 2,
      maxConcurrency: 2,
      requestRate: 'inf',
      burstiness: 1,
      seed: 0,
      numWarmups: 0,
      percentileMetrics: ['e2el'],
      metricPercentiles: [99],
      timeouts: { totalS: 10 },
      failFast: false,
      thresholds: [],
      save: null,
      seedTtsEval: {
        localAsr: { python: venvPython('the local transcription server test'), startTimeoutS: 100 },
        asrModel: missing,
        asrConcurrency: 1,
        saveItems: true,
      },
    });
    const lines: string[] = [];
    const offline = process.env.HF_HUB_OFFLINE;
    process.env.HF_HUB_OFFLINE = '1'; // the model name is a missing folder: nothing to ask the Hub
    let outcome;
    try {
      outcome = await runBenchmark(config, { log: (l) => lines.push(l) });
    } finally {
      if (offline === undefined) delete process.env.HF_HUB_OFFLINE;
      else process.env.HF_HUB_OFFLINE = offline;
    }
    expect(target.arrivals).toHaveLength(2);
    const r = outcome.result;
    expect(r.seed_tts_content_evaluated).toBe(0);
    expect(r.seed_tts_asr_failed).toBe(2);
    const items = r.seed_tts_wer_eval_items as { error: string; detail: string }[];
    expect(items.map((i) => i.error)).toEqual(['asr_exception', 'asr_exception']);
    expect(items[0].detail).toMatch(
      /^the transcription server did not start: the transcription server exited \(exit 1\) before listening/,
    );
    const shown = lines.find((l) => l.startsWith('the transcription server did not start'));
    expect(shown).toContain('its stderr ends:');
    expect(shown).toContain(missing);
    expect(outcome.summary.verdict).toBe('failed');
  }, 120_000);
});
