/**
 * The realtime backends' refusals (docs/design.md#realtime), made before
 * anything is sent: what vLLM-Omni refuses (more than one turn per session
 * without a realtime backend; a duplex run without Seed-TTS input audio; a
 * trigger other than `explicit` or `vad`) and what stallscope cannot do
 * over a WebSocket session (the Seed-TTS gate spools HTTP answers only).
 */
import { isRealtimeBackend } from '../../../shared/config/backends.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import type { BenchConfig } from '../config.ts';

const refuse = (detail: string, field: string): never => {
  throw new StallscopeError('CONFIG_REALTIME', detail, field);
};

/** `--extra-body`'s `realtime_trigger` (vLLM-Omni's name): how a duplex turn ends its input. */
export function realtimeTrigger(c: Pick<BenchConfig, 'extraBody'>): 'explicit' | 'vad' {
  const t = c.extraBody?.realtime_trigger ?? 'explicit';
  return t === 'vad' ? 'vad' : 'explicit';
}

export function validateRealtime(c: BenchConfig): void {
  const k = c.turnsPerSession;
  if (k !== undefined && !(Number.isInteger(k) && k >= 1))
    refuse(`--seed-tts-turns-per-session must be an integer ≥ 1 (got ${k})`, 'turnsPerSession');
  const realtime = isRealtimeBackend(c.backend);
  if (!realtime) {
    if (k !== undefined && k > 1)
      refuse(
        `--seed-tts-turns-per-session > 1 requires a realtime backend (got backend '${c.backend}')`,
        'turnsPerSession',
      );
    return;
  }
  if (c.seedTtsEval)
    refuse('--seed-tts-wer-eval reads HTTP answers; a realtime session has none to spool', 'seedTtsEval');
  const trigger = c.extraBody?.realtime_trigger;
  if (trigger !== undefined && trigger !== 'explicit' && trigger !== 'vad')
    refuse(`realtime_trigger must be "explicit" or "vad" (got ${JSON.stringify(trigger)})`, 'extraBody');
  if (c.backend === 'openai-realtime-duplex' && c.dataset.name !== 'seed-tts')
    refuse(
      `openai-realtime-duplex speaks each prompt's Seed-TTS reference audio: use --dataset-name seed-tts (got '${c.dataset.name}')`,
      'dataset.name',
    );
}
