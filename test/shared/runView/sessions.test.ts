/**
 * Realtime sessions as timeline rows (shared/runView/sessions.ts), and the
 * preset that reproduces the hang over them.
 */
import { describe, expect, it } from 'vitest';
import { sessionRows } from '#shared/runView/sessions.ts';
import { blankRequest } from '#shared/requests/requestLifecycle.ts';
import { REALTIME_HANG } from '#shared/config/presets.ts';
import { runSpecIssues, specToRunConfig } from '#shared/config/runSpec.ts';
import { validateBenchConfig } from '#server/engine/run/validate.ts';

const req = (index: number, over: Partial<ReturnType<typeof blankRequest>>) => ({
  ...blankRequest(index, `r-${index}`),
  ...over,
});

describe('sessionRows', () => {
  it('groups k consecutive requests into one row; a turn starts at its send or its previous turn’s end', () => {
    const rows = sessionRows(
      [
        req(0, { status: 'completed', sentT: 0, firstAudioT: 40, endT: 100 }),
        // Dispatched at once, it waited for turn 0: it starts at 100, not at its send.
        req(1, { status: 'timed_out', sentT: 1, endT: 600 }),
        req(2, { status: 'completed', sentT: 5, firstAudioT: 50, endT: 90 }),
        req(3, { status: 'queued', queuedT: 5 }),
        req(4, { status: 'completed', sentT: 200, endT: 300 }),
      ],
      2,
    );
    expect(rows.map((r) => r.session)).toEqual([0, 1, 2]);
    expect(rows[0].turns).toEqual([
      { index: 0, turn: 0, startT: 0, firstAudioT: 40, endT: 100, status: 'completed' },
      { index: 1, turn: 1, startT: 100, firstAudioT: null, endT: 600, status: 'timed_out' },
    ]);
    expect(rows[1].turns.map((t) => [t.index, t.startT])).toEqual([
      [2, 5],
      [3, null],
    ]);
    // The last session holds what is left.
    expect(rows[2].turns.map((t) => t.index)).toEqual([4]);
  });
});

describe('the realtime hang preset', () => {
  it('is a valid spec the engine accepts: openai-realtime-tts sessions of 4 turns on the embedded server', () => {
    expect(runSpecIssues(REALTIME_HANG.spec)).toEqual([]);
    const config = specToRunConfig(REALTIME_HANG.spec, 'r');
    expect(config).toMatchObject({
      target: { backend: 'openai-realtime-tts', endpoint: '/v1/realtime' },
      workload: { turnsPerSession: 4 },
    });
    expect(() => validateBenchConfig(config)).not.toThrow();
  });
});
