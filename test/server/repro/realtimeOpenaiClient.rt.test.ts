/**
 * Independent clients for /v1/realtime: the official `openai` package's GA
 * realtime client (`client.realtime.connect`) and its beta client
 * (`client.beta.realtime.connect`, `websocket_base_url` for ws://) run
 * sessions against the reproduction server and complete them, each hearing
 * audio and transcript under its own generation's event names
 * (docs/design.md#realtime-dialects); with a Code2Wav hang planned, the
 * client sees the turn stall too (no response.done within its own bound).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { VENV_PYTHON } from '#test/helpers/venvPython.ts';

const SCRIPT = 'test/fixtures/realtime/openai_realtime_client.py';
const PYTHON = VENV_PYTHON;

async function runClient(url: string, turns: number, sessions: number, timeoutS: number, dialect = 'ga') {
  const { stdout } = await promisify(execFile)(
    PYTHON,
    [SCRIPT, url, MODEL, String(turns), String(sessions), String(timeoutS), dialect],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return stdout
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          session: number;
          turn: number;
          status: string;
          audio_bytes: number;
          transcript: string;
          event_types: string[];
        },
    );
}

describe('the openai package realtime client against the reproduction server', () => {
  it.each([
    ['ga', 'response.output_audio.delta', 'response.audio.delta'],
    ['beta', 'response.audio.delta', 'response.output_audio.delta'],
  ])(
    'the %s client completes two sessions of two turns with audio and the spoken-back transcript',
    async (dialect, own, other) => {
      const target = await startReproServer({ tokenRate: 500, log: () => undefined });
      try {
        const turns = await runClient(target.url, 2, 2, 10, dialect);
        expect(turns.map((t) => [t.session, t.turn, t.status])).toEqual([
          [0, 0, 'completed'],
          [0, 1, 'completed'],
          [1, 0, 'completed'],
          [1, 1, 'completed'],
        ]);
        for (const t of turns) {
          expect(t.transcript).toBe(`session ${t.session} turn ${t.turn} please say these words`);
          expect(t.audio_bytes).toBeGreaterThan(0);
          expect(t.audio_bytes % 2).toBe(0);
          // Each generation hears its own names only: one session never mixes the two.
          expect(t.event_types).toContain(own);
          expect(t.event_types).not.toContain(other);
        }
      } finally {
        await target.close();
      }
    },
  );

  it('sees a planned Code2Wav hang as a turn without response.done', async () => {
    const target = await startReproServer({ tokenRate: 500, faults: ['hift:block:after=2'], log: () => undefined });
    try {
      const turns = await runClient(target.url, 2, 1, 2);
      expect(turns).toHaveLength(1);
      expect(turns[0].status).toBe('timeout');
    } finally {
      await target.close();
    }
  });
});
