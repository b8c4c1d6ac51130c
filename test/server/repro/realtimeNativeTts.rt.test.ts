/**
 * vLLM-Omni's newest `openai-realtime-tts` flow against the reproduction
 * server, driven by a Python client written to the upstream wire
 * (test/fixtures/realtime/upstream_native_tts_client.py): the target text
 * seeded in `session.extra_body.duplex_initial_user_text` with
 * `auto_response: true`, then 200 ms chunks of 16 kHz silence. The server
 * answers the seeded text (audio within 5 s of the first chunk, the text
 * spoken back as the transcript) and ends with `response.done`, under the
 * GA names a seeded native session speaks (dialect.ts), as upstream's newest
 * client reads them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { venvPython } from '#test/helpers/venvPython.ts';

const SCRIPT = 'test/fixtures/realtime/upstream_native_tts_client.py';

async function runClient(url: string, text: string, silenceS: number, settleS: number) {
  const { stdout } = await promisify(execFile)(
    venvPython(),
    [SCRIPT, url, MODEL, text, String(silenceS), String(settleS)],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout) as {
    status: string | null;
    audio_bytes: number;
    transcript: string;
    event_types: string[];
    first_audio_after_s: number | null;
    silence_s: number;
  };
}

describe('the newest upstream realtime TTS flow (model-native duplex) against the reproduction server', () => {
  it('answers the seeded text over streamed silence: audio within 5 s of the first chunk, then response.done', async () => {
    const target = await startReproServer({ tokenRate: 500, log: () => undefined });
    try {
      const text = 'the quick brown fox jumps over the lazy dog';
      const out = await runClient(target.url, text, 30, 20);
      expect(out.status).toBe('completed');
      expect(out.transcript).toBe(text);
      expect(out.audio_bytes).toBeGreaterThan(0);
      expect(out.first_audio_after_s).not.toBeNull();
      expect(out.first_audio_after_s!).toBeLessThan(5);
      // The client stopped its silence once the answer settled, long before its 30 s bound.
      expect(out.silence_s).toBeLessThan(30);
      // The GA names, which upstream's newest client reads on this route (and only those).
      expect(out.event_types).toContain('response.output_audio.delta');
      expect(out.event_types).toContain('response.output_audio_transcript.delta');
      expect(out.event_types).not.toContain('response.audio.delta');
    } finally {
      await target.close();
    }
  });

  it('answers nothing to a session seeded with no text, however long the silence', async () => {
    const target = await startReproServer({ tokenRate: 500, log: () => undefined });
    try {
      // The fixture always sends auto_response true; an empty seed is the negative case here.
      const out = await runClient(target.url, '', 1, 1);
      expect(out.status).toBe('timeout');
      expect(out.audio_bytes).toBe(0);
    } finally {
      await target.close();
    }
  });
});
