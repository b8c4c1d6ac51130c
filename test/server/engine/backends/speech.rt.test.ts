/**
 * `--backend openai-audio-speech` end to end against the reproduction
 * server's `/v1/audio/speech` (docs/design.md#backends): the seeded run's
 * figures equal what the bytes the server sends give by vLLM-Omni's
 * definitions, a Code2Wav hang trips fail-fast within the bound in both
 * connection modes, and a server that pauses mid-stream is reported as an
 * underrun while a steady one is not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { startReproServer } from '#server/repro/server.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import type { WatchdogStallReport } from '#shared/types.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const speechConfig = (url: string, over: Parameters<typeof testBenchConfig>[1] = {}) =>
  testBenchConfig(url, {
    backend: 'openai-audio-speech',
    endpoint: '/v1/audio/speech',
    model: MODEL,
    percentileMetrics: ['e2el', 'audio_ttfp', 'audio_rtf', 'audio_underrun'],
    metricPercentiles: [50, 99],
    save: null,
    ...over,
  });

describe('openai-audio-speech against the reproduction server', () => {
  it('a seeded run: frames, duration, rtf and the result keys are what the server sent', async () => {
    const target = await startReproServer({ tokenRate: 400, log: () => undefined });
    closers.push(() => target.close());
    const config = speechConfig(target.url, { numPrompts: 3, maxConcurrency: 1 });
    const out = await runBenchmark(config, { warmClient: false });
    expect(out.summary.verdict).toBe('passed');
    const records = [...out.records];
    // The same requests, non-streamed: the whole PCM the pipeline makes for each seeded prompt.
    const bytes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const body = JSON.parse(records[i] ? Buffer.from(await bodyOf(config, i)).toString() : '{}') as Record<
        string,
        unknown
      >;
      const res = await fetch(`${target.url}/v1/audio/speech`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream: false }),
      });
      expect(res.headers.get('content-type')).toBe('audio/pcm');
      bytes.push((await res.arrayBuffer()).byteLength);
    }
    const frames = bytes.map((b) => Math.floor(b / 2));
    expect(records.map((r) => r.audioFrames)).toEqual(frames);
    for (const [i, r] of records.entries()) {
      expect(r.audioDuration).toBe(frames[i] / 24000);
      expect(r.audioRtf).toBe(r.latency / r.audioDuration);
      expect(r.audioTtfp).toBeGreaterThan(0);
      expect(r.audioTtfp).toBeLessThanOrEqual(r.latency);
      expect(r.ttft).toBe(0);
    }
    const res = out.result;
    const total = frames.reduce((a, b) => a + b, 0);
    expect(res.backend).toBe('openai-audio-speech');
    expect(res.total_audio_frames).toBe(total);
    expect(res.total_audio_duration_s).toBe(frames.reduce((a, f) => a + f / 24000, 0));
    expect(res.total_output_tokens).toBe(0); // no text: ttft/tpot/itl keys are not written
    expect(res).not.toHaveProperty('mean_ttft_ms');
    const rtfs = records.map((r) => r.audioRtf).sort((a, b) => a - b);
    expect(res.median_audio_rtf).toBe(rtfs[1]);
    expect(res.mean_audio_ttfp_ms).toBe((records.reduce((a, r) => a + r.audioTtfp, 0) / 3) * 1000);
    const under = records.map((r) => r.audioUnderrunS ?? -1);
    expect(res.mean_audio_underrun_s).toBe(under.reduce((a, b) => a + b, 0) / 3);
    expect(res.audio_continuity_ok_rate).toBe(records.filter((r) => r.audioContinuityOk).length / 3);
  }, 30_000);

  for (const mode of ['keep_alive', 'per_request'] as const) {
    it(`a Code2Wav hang trips fail-fast within the bound (${mode})`, async () => {
      const reports: WatchdogStallReport[] = [];
      const recovered = new Set<number>();
      const target = await startReproServer({
        tokenRate: 1000,
        faults: ['hift:block:after=3'],
        watchdogTimeoutS: 0.3,
        log: () => undefined,
        onTelemetry: (e) => {
          if (e.type === 'watchdog.stall') reports.push(e.report);
          if (e.type === 'watchdog.recovered') recovered.add(e.opId);
        },
      });
      closers.push(() => target.close());
      const events: BenchEvent[] = [];
      const t0 = performance.now();
      const out = await runBenchmark(
        speechConfig(target.url, {
          numPrompts: 8,
          maxConcurrency: 2,
          connectionMode: mode,
          timeouts: { totalS: 1.5 },
          failFast: true,
        }),
        { warmClient: false, onEvent: (e) => events.push(e) },
      );
      const wallS = (performance.now() - t0) / 1000;
      expect(out.summary.breakerTripped).toBe(true);
      expect(out.summary.cause?.kind).toBe('total');
      expect(out.summary.verdict).toBe('failed_closed');
      expect(out.result.timed_out_requests).toBeGreaterThanOrEqual(1);
      expect(out.result.not_dispatched_requests).toBeGreaterThanOrEqual(1);
      // One 1.5 s timeout, then the bounded stop: far below the 8 requests' worth of waiting.
      expect(wallS).toBeLessThan(8);
      // The hung speech stream had sent audio before the hang: its first audio was seen live.
      expect(events.some((e) => e.type === 'request.first_audio')).toBe(true);
      // The watchdog reports the blocked hift op (its telemetry may land after the run ended), naming speech
      // requests of this run.
      await waitFor(() => reports.some((x) => !recovered.has(x.opId)));
      const hung = reports.filter((x) => !recovered.has(x.opId));
      expect(hung).toHaveLength(1);
      expect(hung[0].phase).toBe('hift');
      expect(hung[0].stack[0]).toMatchObject({ function: 'blockOnDeviceSync' });
      expect(hung[0].requestIds.every((id) => id.startsWith('test-'))).toBe(true);
    }, 30_000);
  }

  it('continuity: a server pausing mid-stream is an underrun (one late chunk), a steady one is not', async () => {
    const paused = await pcmServer([
      [4800, 0], // 0.1 s of audio
      [96000, 500], // then 0.5 s of silence on the wire before 2 s more
      [4800, 0],
    ]);
    const steady = await pcmServer([
      [96000, 0], // 2 s of audio at once, then 0.1 s more after 0.2 s: always ahead of playback
      [4800, 200],
    ]);
    const bad = await runBenchmark(speechConfig(paused, { numPrompts: 1 }), { warmClient: false });
    const rec = bad.records.at(0);
    expect(rec.success).toBe(true);
    expect(rec.audioUnderrunEventCount).toBe(1);
    // 0.5 s without data after 0.1 s of audio: 0.4 s short, plus however late the pause ended.
    expect(rec.audioUnderrunS).toBeGreaterThanOrEqual(0.39);
    expect(rec.audioUnderrunS).toBeLessThan(1.5);
    expect(rec.audioContinuityOk).toBe(false);
    expect(bad.result.audio_continuity_ok_rate).toBe(0);
    const good = await runBenchmark(speechConfig(steady, { numPrompts: 1 }), { warmClient: false });
    expect(good.records.at(0).audioUnderrunS).toBe(0);
    expect(good.records.at(0).audioUnderrunEventCount).toBe(0);
    expect(good.result.audio_continuity_ok_rate).toBe(1);
  }, 30_000);

  it('an audio/wav answer is refused (REQ_NOT_AUDIO_STREAM), not its header read as samples', async () => {
    const wav = await pcmServer([[4844, 0]], 'audio/wav');
    const out = await runBenchmark(speechConfig(wav, { numPrompts: 1 }), { warmClient: false });
    const rec = out.records.at(0);
    expect(rec.success).toBe(false);
    expect(rec.errorCode).toBe('REQ_NOT_AUDIO_STREAM');
    expect(rec.error).toContain('response is audio/wav, not the raw PCM asked for');
  }, 30_000);

  it('a dropped connection fails a speech request at once: the upstream speech function has no retry loop', async () => {
    // async_request_openai_audio_speech has no retry loop (newest patch.py, index id 68336905632): a transport
    // error ends the request. The chat-omni function's 3 retries 100 ms apart are its own.
    let seen = 0;
    const server: Server = createServer((req, res) => {
      seen++;
      req.resume();
      if (seen === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      res.end(Buffer.alloc(4800));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const out = await runBenchmark(speechConfig(url, { numPrompts: 1 }), { warmClient: false });
    const rec = out.records.at(0);
    expect(rec.success).toBe(false);
    expect(rec.attempts).toBe(1);
    expect(seen).toBe(1);
    expect(out.result.failed).toBe(1);
  }, 30_000);
});

/** The body the run sent for request i (built the same way). */
async function bodyOf(config: ReturnType<typeof speechConfig>, i: number): Promise<string | Uint8Array> {
  const { backendOf } = await import('#server/engine/backends/index.ts');
  const { loadDataset } = await import('#server/engine/datasets/index.ts');
  const data = await loadDataset(config, { env: {}, log: () => undefined });
  return backendOf(config.target.backend).buildBody(config, data.samples[i]);
}

/** A server answering every speech request with PCM writes of [bytes, delay before it in ms], typed `contentType`. */
async function pcmServer(writes: [number, number][], contentType = 'audio/pcm'): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      void (async () => {
        for (const [bytes, delay] of writes) {
          if (delay) await new Promise((r) => setTimeout(r, delay));
          res.write(Buffer.alloc(bytes));
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
