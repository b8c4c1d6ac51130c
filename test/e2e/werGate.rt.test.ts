/**
 * The Seed-TTS WER gate in the dashboard, in Chromium: a seed-tts run
 * started through the API against a loopback target and a scripted
 * transcription server; its page shows the gate against its bound, each
 * request's transcript and WER, and the WER histogram; Compare has the WER.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';
import { startSseServer, type Arrival, type Behaviour, type TestServer } from '../helpers/sseServer.ts';
import { startFakeAsr, type FakeAsr } from '../helpers/fakeAsr.ts';
import { DONE, roleEvent, sse, textEvent, usageEvent } from '../helpers/sse.ts';
import { makeWav } from '../helpers/wav.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';

const TEXTS = ['Alpha beta gamma delta.', 'One two three four.', 'Red green blue.'];
/** Transcripts keyed by the uploaded sample count (sentence k is answered with 2400·(k+1) samples at 24 kHz). */
const TRANSCRIPTS: Record<number, string> = { 1600: 'alpha beta gamma delta', 3200: 'one two three', 4800: '' };

let target: TestServer;
let asr: FakeAsr;
let dir: string;

function answer(a: Arrival): Behaviour {
  const text = (a.body.messages as { content: { text: string }[] }[])[1].content[0].text;
  const wav = makeWav(2400 * (TEXTS.indexOf(text) + 1)).toString('base64');
  const audio = sse({ choices: [{ index: 0, delta: { content: wav } }], modality: 'audio' });
  return { kind: 'raw', chunks: [roleEvent(), textEvent(text, 1), audio, usageEvent(1), DONE] };
}

describe('the WER gate in the dashboard', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stallscope-wer-e2e-'));
    mkdirSync(join(dir, 'en', 'prompt-wavs'), { recursive: true });
    writeFileSync(join(dir, 'en', 'prompt-wavs', 'p.wav'), makeWav(240));
    writeFileSync(join(dir, 'en', 'meta.lst'), TEXTS.map((t, i) => `utt_${i}|p|prompt-wavs/p.wav|${t}`).join('\n'));
    target = await startSseServer(answer);
    asr = await startFakeAsr((u) => ({ text: TRANSCRIPTS[u.samples] ?? 'unexpected' }));
  });

  // The dashboard (and the web build it serves) starts within this hook's minute, not a test's 20 s.
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  afterAll(async () => {
    await target?.close();
    await asr?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the gate against its bound, each transcript and WER, the histogram, and the WER in Compare', async ({
    page,
    dashboard,
  }) => {
    const spec = {
      ...CODE2WAV_HANG.spec,
      label: 'wer-gate',
      target: { kind: 'url', baseUrl: target.url },
      dataset: {
        name: 'seed-tts',
        path: dir,
        locale: 'en',
        noOversample: true,
        werEval: { enabled: true, asrUrl: asr.url, asrConcurrency: 2, saveItems: true },
      },
      numPrompts: 3,
      maxConcurrency: 2,
      failFast: false,
      timeouts: { totalS: 30 },
      thresholds: ['seed_tts_content_error_mean<=0.05'],
    };
    const { id } = await dashboard.api<{ id: string }>('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
    await expect
      .poll(async () => (await dashboard.api<{ verdict: string | null }>(`/api/runs/${id}`)).verdict, {
        timeout: 20_000,
      })
      .toBe('failed');

    // WERs: 0 and 1/4; the third transcript is empty (excluded). Mean 0.125 > 0.05: the bound fails.
    await page.goto(`${dashboard.url}/#/runs/${encodeURIComponent(id)}?request=1`);
    const gate = page.getByTestId('accuracy-gate');
    await gate.waitFor();
    await expect.poll(() => gate.getByTestId('gate-mean').textContent()).toBe('0.1250');
    await expect.poll(() => gate.getByTestId('gate-median').textContent()).toBe('0.1250');
    await expect
      .poll(() => gate.getByTestId('gate-bound').textContent())
      .toContain('seed_tts_content_error_mean<=0.05 ✗ fails');
    await expect.poll(() => gate.getByTestId('gate-counts').textContent()).toContain('2 / 1');
    await page.getByTestId('wer-histogram').scrollIntoViewIfNeeded();
    await page.getByTestId('wer-histogram').locator('.recharts-bar-rectangle').first().waitFor();
    await page.screenshot({ path: screenshotPath('wer-gate'), fullPage: true });

    // Each request's details (the rows are shuffled by --seed, as vLLM-Omni: read the target text too).
    const seen: string[][] = [];
    for (let i = 0; i < TEXTS.length; i++) {
      await page.goto(`${dashboard.url}/#/runs/${encodeURIComponent(id)}?request=${i}`);
      await page.reload();
      const detail = page.getByTestId('request-detail');
      await detail.getByTestId('detail-wer').waitFor();
      seen.push(
        await Promise.all(
          ['detail-reference', 'detail-transcript', 'detail-wer'].map(
            async (t) => (await detail.getByTestId(t).textContent()) ?? '',
          ),
        ),
      );
    }
    expect(seen.sort()).toEqual([
      ['Alpha beta gamma delta.', 'alpha beta gamma delta', '0.0000'],
      ['One two three four.', 'one two three', '0.2500'],
      ['Red green blue.', '–', 'excluded: empty_asr'],
    ]);

    await page.goto(`${dashboard.url}/#/compare?ids=${encodeURIComponent(id)}`);
    await page.getByTestId('metrics-table').waitFor();
    await expect.poll(() => page.getByTestId('metrics-table').textContent()).toContain('Mean WER0.1250');
  }, 60_000);

  it('the New-run form has the ASR fields for Seed-TTS runs only, and needs the URL when the gate is on', async ({
    page,
    dashboard,
  }) => {
    await page.goto(`${dashboard.url}/#/new`);
    await page.getByTestId('preset-seed-tts-url').check();
    await expect.poll(() => page.locator('#f-dataset-werEval-asrUrl').inputValue()).toBe('http://127.0.0.1:8001');
    await page.locator('#f-dataset-werEval-asrUrl').fill('');
    await expect
      .poll(() => page.getByTestId('error-dataset.werEval.asrUrl').textContent())
      .toMatch(/transcription server/);
    await page.locator('#f-dataset-werEval-enabled').uncheck();
    await expect.poll(() => page.locator('#f-dataset-werEval-asrUrl').count()).toBe(0);
    await page.getByTestId('preset-code2wav-hang').check();
    await expect.poll(() => page.locator('#f-dataset-werEval-enabled').count()).toBe(0);
  }, 30_000);
});
