/**
 * The reproduction server writes stage 2's `audio_duration_s` as vLLM-Omni's server does: a Python float
 * (`frames / rate`), so a whole duration is `4.0` on the wire, not JSON.stringify's `4`. vLLM-Omni's newest client
 * copies that value verbatim into `request_stage_metrics` (`_compact_request_stage_metrics`), so with `4` its
 * result file held an int where a run against the real server holds a float (the side-by-side with upstream's own client, entries #2
 * and #12). Only the number's spelling changes: the parsed event is the same.
 */
import { describe, expect, it } from 'vitest';
import { ChunkFactory, sseData, type StageCounters } from '#server/repro/routes/sse.ts';
import type { ChatRequest } from '#server/repro/requests/chatRequest.ts';

const req: ChatRequest = {
  model: 'm',
  stream: true,
  includeUsage: true,
  continuousUsage: true,
  wantText: true,
  wantAudio: true,
  maxTokens: null,
  maxNewTokens: null,
  ignoreEos: false,
  stageMetrics: true,
  userText: 'hello',
  promptTokens: 3,
};

function audioEvent(audioFrames: number): string {
  const counters: StageCounters = { tokens: 7, textFinish: 'stop', audioFrames, sampleRate: 24000 };
  return sseData(new ChunkFactory('chatcmpl-1', 1, 'm', req, counters).audio('UklGRg==', null));
}

describe('stage 2 audio_duration_s on the wire', () => {
  it('writes a whole duration as a float literal (4.0), as Python json does', () => {
    const text = audioEvent(96000);
    expect(text).toContain('"audio_duration_s":4.0');
    expect(JSON.parse(text.slice('data: '.length)).metrics.stage_metrics['2']).toEqual({
      stage_id: 2,
      final_output_type: 'audio',
      audio_frames: 96000,
      audio_duration_s: 4,
    });
  });

  it('leaves a fractional duration and the frame count as they were, and writes a zero duration as 0.0', () => {
    expect(audioEvent(43200)).toContain('"audio_frames":43200,"audio_duration_s":1.8}');
    expect(audioEvent(0)).toContain('"audio_frames":0,"audio_duration_s":0.0}');
  });

  it('touches no text that only quotes the key', () => {
    const counters: StageCounters = { tokens: 1, textFinish: null, audioFrames: 0, sampleRate: 24000 };
    const noMetrics = new ChunkFactory('c', 1, 'm', { ...req, stageMetrics: false }, counters);
    const text = sseData(noMetrics.text('{"audio_duration_s":4}', null));
    expect(JSON.parse(text.slice('data: '.length)).choices[0].delta.content).toBe('{"audio_duration_s":4}');
  });
});
