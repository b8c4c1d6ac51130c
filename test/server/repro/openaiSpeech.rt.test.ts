/**
 * An independent client: the official `openai` Python package (pinned in
 * .ci/requirements.txt) talks to the reproduction server's
 * `/v1/audio/speech`. Its `with_streaming_response` reads the streamed PCM
 * (and the non-streamed whole PCM) to the end; against a Code2Wav hang it
 * sees the stream stop and gives up at its own timeout. If the package could
 * not read the answer, the server would be wrong.
 */
import { execFile } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { venvPython } from '#test/helpers/venvPython.ts';

const SCRIPT = `
import json, sys, time
from openai import OpenAI
url, model, stream, timeout = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4])
client = OpenAI(base_url=url + "/v1", api_key="unused", timeout=timeout, max_retries=0)
extra = {"stream": True, "stream_format": "audio"} if stream else None
t0 = time.monotonic()
out = {"bytes": 0, "reads": 0}
try:
    with client.audio.speech.with_streaming_response.create(
        model=model, voice="a-voice-nobody-has", input=" ".join(["Say hello to the stall scope test, slowly and clearly."] * 8),
        response_format="pcm", extra_body=extra,
    ) as r:
        out["content_type"] = r.headers.get("content-type")
        for chunk in r.iter_bytes():
            out["bytes"] += len(chunk)
            out["reads"] += 1
    out["ok"] = True
except Exception as e:
    out["ok"] = False
    out["error"] = type(e).__name__
out["elapsed"] = time.monotonic() - t0
print(json.dumps(out))
`;

interface Seen {
  ok: boolean;
  bytes: number;
  reads: number;
  content_type?: string;
  error?: string;
  elapsed: number;
}

function pythonClient(url: string, stream: boolean, timeoutS: number): Promise<Seen> {
  return new Promise((resolve, reject) => {
    execFile(
      venvPython(),
      ['-c', SCRIPT, url, MODEL, stream ? '1' : '0', String(timeoutS)],
      { timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('the openai Python package against /v1/audio/speech', () => {
  it('streams PCM to the end, and reads the non-streamed whole PCM: the same bytes', async () => {
    const target = await startReproServer({ tokenRate: 400, log: () => undefined });
    closers.push(() => target.close());
    const streamed = await pythonClient(target.url, true, 30);
    const whole = await pythonClient(target.url, false, 30);
    expect(streamed).toMatchObject({ ok: true, content_type: 'audio/pcm' });
    expect(whole).toMatchObject({ ok: true, content_type: 'audio/pcm' });
    expect(streamed.bytes).toBeGreaterThan(24000); // more than half a second of 24 kHz s16
    expect(streamed.bytes % 2).toBe(0);
    expect(whole.bytes).toBe(streamed.bytes); // seeded: the same text, the same audio
  }, 90_000);

  it('sees a Code2Wav hang: the stream stops and the client gives up at its timeout', async () => {
    const target = await startReproServer({ tokenRate: 1000, faults: ['hift:block:after=3'], log: () => undefined });
    closers.push(() => target.close());
    const seen = await pythonClient(target.url, true, 2);
    expect(seen.ok).toBe(false);
    expect(seen.error).toMatch(/Timeout/);
    expect(seen.bytes).toBeGreaterThan(0); // audio came before the hang
    expect(seen.elapsed).toBeGreaterThanOrEqual(1.9);
    expect(seen.elapsed).toBeLessThan(20);
  }, 90_000);
});
