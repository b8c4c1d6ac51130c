/**
 * The native tts flow's times as upstream takes them (docs/design.md#realtime):
 * TTFT/TTFP/RTF from the first silent chunk's send, E2EL from before the
 * turn's own session upgrade to after its close — the connect, handshake,
 * silence, answer, playback acknowledgement and close, as upstream's
 * `request_finished_at - start_time`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { realtimeRun } from '#test/helpers/realtimeTurns.ts';

describe('native realtime tts timing', () => {
  let target: Awaited<ReturnType<typeof startReproServer>>;
  beforeAll(async () => {
    target = await startReproServer({ tokenRate: 500, seed: 7, log: () => undefined });
  });
  afterAll(() => target.close());

  it('times TTFT/TTFP from the first silent chunk and E2EL over the whole session, close included', async () => {
    const run = realtimeRun(target.url);
    const texts = ['one two three four', 'five six seven eight'];
    const outs: Awaited<ReturnType<typeof run.turn>>[] = [];
    // One session of two utterances: each opens, is answered and closes before the next (one WebSocket each).
    for (const [i, text] of texts.entries()) outs.push(await run.turn(i, text, 2, 2, { flow: 'native' }));
    for (const [i, o] of outs.entries()) {
      expect(o.result, `turn ${i}: ${o.record.error}`).toEqual({ type: 'ok' });
      const t = o.timing!;
      expect(o.record.generatedText).toBe(texts[i]);
      // The request starts before its session's upgrade; the origin is after the handshake.
      expect(t.originTs).toBeGreaterThan(o.record.startTime);
      expect(o.record.ttft).toBeCloseTo(t.firstTextTs! - t.originTs, 9);
      expect(o.record.audioTtfp).toBeCloseTo(t.firstAudioTs! - t.originTs, 9);
      expect(o.record.audioRtf).toBeCloseTo((t.lastAudioTs! - t.originTs) / o.record.audioDuration, 9);
      // E2EL reaches past response.done: the playback ack and the session's close are in it.
      expect(o.record.startTime + o.record.latency).toBeGreaterThan(t.doneTs!);
    }
    // The second utterance's session opened after the first one's close ended the first request.
    expect(outs[1].record.startTime).toBeGreaterThanOrEqual(outs[0].record.startTime + outs[0].record.latency);
    expect(run.sockets().opened).toBe(2);
    expect(run.sockets().size).toBe(0);
  }, 30_000);
});
