/**
 * The Seed-TTS content evaluation (docs/design.md#accuracy-gate; vLLM-Omni's
 * `compute_seed_tts_wer_metrics`): for every request in dataset order,
 * request failed → `request_failed`; no audio → `no_pcm`; audio resampled to
 * 16 kHz and transcribed; recognition error → `asr_exception`, empty
 * transcript → `empty_asr`, unscorable → `wer_compute_failed` (all three
 * counted in `seed_tts_asr_failed`); otherwise the utterance's WER. The
 * mean and median are over the per-utterance values. Recognition runs
 * `concurrency` at a time; results keep dataset order.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpooledAudio } from './audioSpool.ts';
import { encodeWav16, pcmToMono, resample } from './resample.ts';
import { fmean, median, scoreUtterance, scoringLang } from './score.ts';
import { toSimplified } from './zhConvert.ts';

export const ASR_SAMPLE_RATE = 16000;

export type EvalError =
  'request_failed' | 'no_pcm' | 'empty_audio' | 'asr_exception' | 'empty_asr' | 'wer_compute_failed';

export interface EvalUtterance {
  index: number;
  utteranceId: string;
  locale: string;
  /** The target text the model was asked to speak. */
  reference: string;
  requestSucceeded: boolean;
  requestError: string;
  audio: SpooledAudio | null;
}

/** One utterance's outcome (also the dashboard's per-request detail). */
export interface EvalItem {
  index: number;
  utteranceId: string;
  locale: string;
  reference: string;
  /** The recognised text as the recogniser returned it (simplified for zh); null when not recognised. */
  transcript: string | null;
  wer: number | null;
  error: EvalError | null;
  detail?: string;
}

export interface Transcriber {
  transcribe(wav: Uint8Array, language: string, signal?: AbortSignal): Promise<string>;
}

export interface EvaluateOptions {
  asr: Transcriber;
  concurrency: number;
  readAudio: (audio: SpooledAudio) => Promise<Uint8Array>;
  /** Write `seed_tts_wer_eval_items`. */
  saveItems: boolean;
  /** Keep each answer's audio as a 24 kHz WAV here (`SEED_TTS_WER_SAVE_AUDIO_DIR`). */
  saveAudioDir?: string | null;
  signal?: AbortSignal;
  onItem?: (item: EvalItem, done: number) => void;
}

export interface SeedTtsEvaluation {
  /** The result keys, in vLLM-Omni's order. */
  keys: Record<string, unknown>;
  items: EvalItem[];
  /** An interrupt (signal, dashboard Cancel) stopped the evaluation: the run is interrupted, not failed. */
  interrupted: boolean;
}

export async function evaluateSeedTts(
  utterances: readonly EvalUtterance[],
  o: EvaluateOptions,
): Promise<SeedTtsEvaluation> {
  const items = new Array<EvalItem>(utterances.length);
  const saved = { ok: 0, failed: 0 };
  if (o.saveAudioDir) await mkdir(o.saveAudioDir, { recursive: true });
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < utterances.length) {
      const k = next++;
      items[k] = await evaluateOne(utterances[k], o, saved);
      o.onItem?.(items[k], ++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, utterances.length)) }, worker));

  const errs = items.filter((it) => it.wer !== null).map((it) => it.wer!);
  const count = (...kinds: EvalError[]): number => items.filter((it) => it.error && kinds.includes(it.error)).length;
  const keys: Record<string, unknown> = {
    seed_tts_eval_protocol: 'seed-tts-eval',
    seed_tts_content_evaluated: errs.length,
    seed_tts_content_error_mean: fmean(errs),
    seed_tts_content_error_median: median(errs),
    seed_tts_request_failed: count('request_failed'),
    seed_tts_no_pcm: count('no_pcm'),
    seed_tts_asr_failed: count('empty_audio', 'asr_exception', 'empty_asr', 'wer_compute_failed'),
    seed_tts_content_metric: 'wer',
    // Speaker similarity and UTMOS are off by default upstream and not computed here.
    seed_tts_sim_evaluated: 0,
    seed_tts_sim_mean: null,
    seed_tts_sim_median: null,
    seed_tts_sim_failed: 0,
    seed_tts_sim_skipped_no_ref: 0,
    seed_tts_utmos_evaluated: 0,
    seed_tts_utmos_mean: null,
    seed_tts_utmos_median: null,
    seed_tts_utmos_failed: 0,
  };
  if (o.saveAudioDir) {
    keys.seed_tts_saved_audio = saved.ok;
    keys.seed_tts_save_audio_failed = saved.failed;
    keys.seed_tts_save_audio_dir = o.saveAudioDir;
  }
  if (o.saveItems) keys.seed_tts_wer_eval_items = items.map(resultRow);
  return { keys, items, interrupted: o.signal?.aborted ?? false };
}

/** A `seed_tts_wer_eval_items` row as upstream writes it. */
export function resultRow(it: EvalItem): Record<string, unknown> {
  if (it.error === null)
    return {
      utterance_id: it.utteranceId,
      locale: it.locale,
      wer: it.wer,
      reference_raw: it.reference,
      asr_raw: it.transcript,
    };
  const row: Record<string, unknown> = { utterance_id: it.utteranceId, locale: it.locale, error: it.error };
  if (it.detail !== undefined) row.detail = it.detail;
  return row;
}

async function evaluateOne(
  u: EvalUtterance,
  o: EvaluateOptions,
  saved: { ok: number; failed: number },
): Promise<EvalItem> {
  const base = { index: u.index, utteranceId: u.utteranceId, locale: u.locale, reference: u.reference };
  const fail = (error: EvalError, detail?: string, transcript: string | null = null): EvalItem => ({
    ...base,
    transcript,
    wer: null,
    error,
    ...(detail === undefined ? {} : { detail: detail.slice(0, 500) }),
  });
  if (!u.requestSucceeded) return fail('request_failed', u.requestError);
  if (!u.audio) return fail('no_pcm');
  // Interrupted (before or during the evaluation): no more resampling or uploads, the run is ending.
  if (o.signal?.aborted) return fail('asr_exception', 'interrupted');
  const lang = scoringLang(u.locale);
  let wav: Buffer;
  try {
    const pcm = await o.readAudio(u.audio);
    if (u.audio.sampleWidth !== 2)
      throw new Error(`${8 * u.audio.sampleWidth}-bit audio: only 16-bit PCM is evaluated`);
    const mono = pcmToMono(pcm, u.audio.channels);
    if (o.saveAudioDir) {
      try {
        const name = `${String(u.index).padStart(5, '0')}_${u.utteranceId.replace(/[^\w.-]+/g, '_')}.wav`;
        await writeFile(
          join(o.saveAudioDir, name),
          encodeWav16(
            Float32Array.from(mono, (v) => v / 32768),
            u.audio.sampleRate,
          ),
        );
        saved.ok++;
      } catch {
        saved.failed++;
      }
    }
    const at16k = resample(mono, u.audio.sampleRate, ASR_SAMPLE_RATE);
    if (at16k.length === 0) return fail('empty_audio');
    wav = encodeWav16(at16k, ASR_SAMPLE_RATE);
  } catch (e) {
    return fail('asr_exception', (e as Error).message);
  }
  let hyp: string;
  try {
    hyp = await o.asr.transcribe(wav, lang, o.signal);
    if (lang === 'zh') hyp = (await toSimplified(hyp)).trim();
  } catch (e) {
    return fail('asr_exception', (e as Error).message);
  }
  if (!hyp) return fail('empty_asr');
  try {
    const s = scoreUtterance(u.reference, hyp, lang);
    return { ...base, transcript: hyp, wer: s.wer, error: null };
  } catch (e) {
    return fail('wer_compute_failed', (e as Error).message, hyp);
  }
}
