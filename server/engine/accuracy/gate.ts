/**
 * The Seed-TTS gate's part in a run (`--seed-tts-wer-eval`): the audio spool
 * the requests write to while the benchmark runs, then — after the
 * benchmark, as vLLM-Omni, once every benchmark socket is closed — the
 * evaluation of every request against its target text. Emits
 * `accuracy.started` and one `accuracy.item` per request. Owns the spool
 * folder and the recogniser (its connections; stallscope's own transcription
 * server when there is no --asr-url) and releases them, whatever happens.
 */
import type { AccuracyItem } from '../../../shared/protocol/protocol.ts';
import type { EndedRecord } from '../records/record.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import type { SeedTtsEvalConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';
import type { RunEvents } from '../records/events.ts';
import { AudioSpool } from './audioSpool.ts';
import { evaluateSeedTts, type SeedTtsEvaluation, type Transcriber } from './evaluate.ts';
import { checkLocalAsr } from './localAsr.ts';
import { openRecogniser, type Recogniser } from './recogniser.ts';
import { scoringLang } from './score.ts';

export interface GateRun {
  samples: readonly SampleRequest[];
  /** Every request's record, in dataset order (the run's request table). */
  records: RecordList<EndedRecord>;
  events: RunEvents;
  log: (line: string) => void;
  signal?: AbortSignal;
  /** The run's thresholds; those on seed_tts_* keys are shown as the gate's bounds. */
  thresholds: readonly string[];
}

export class SeedTtsGate {
  private constructor(
    private readonly config: SeedTtsEvalConfig,
    private readonly locale: string,
    readonly spool: AudioSpool,
    private readonly transcriber?: Transcriber,
  ) {}

  /**
   * Before anything is sent: with stallscope's own transcription server, its
   * Python is checked (a missing package refuses the run). `transcriber`
   * replaces the recogniser (tests of the evaluation alone).
   */
  static async open(config: SeedTtsEvalConfig, locale: string, transcriber?: Transcriber): Promise<SeedTtsGate> {
    if (config.localAsr && !transcriber)
      await checkLocalAsr({ python: config.localAsr.python, language: scoringLang(locale) });
    return new SeedTtsGate(config, locale, await AudioSpool.create(), transcriber);
  }

  /** Evaluates the run's answers, then removes the spool. */
  async evaluate(run: GateRun): Promise<SeedTtsEvaluation> {
    const c = this.config;
    let recogniser: Recogniser | null = null;
    try {
      await this.spool.settle();
      recogniser = this.transcriber ? null : await openRecogniser(c, this.locale, run.log, run.signal);
      const utterances = run.samples.map((sample, index) => {
        const record = run.records.at(index);
        const meta = sample.seedTts ?? { utteranceId: String(index), locale: 'en', targetText: '' };
        let audio = null;
        let spoolError: string | null = null;
        try {
          audio = record?.success ? this.spool.audioOf(index) : null;
        } catch (e) {
          spoolError = `the audio spool could not be written: ${(e as Error).message}`;
        }
        return {
          index,
          utteranceId: meta.utteranceId,
          locale: meta.locale,
          reference: meta.targetText,
          requestSucceeded: Boolean(record?.success) && spoolError === null,
          requestError: spoolError ?? record?.error ?? 'never sent',
          audio,
        };
      });
      run.log(
        `Seed-TTS WER evaluation: ${utterances.length} answers, recogniser ${recogniser?.model ?? c.asrModel} at ${recogniser?.where ?? 'in process'} (${c.asrConcurrency} at a time)`,
      );
      run.events.emit({
        type: 'accuracy.started',
        total: utterances.length,
        asrModel: recogniser?.model ?? c.asrModel,
        bounds: run.thresholds.filter((t) => t.trim().startsWith('seed_tts_')),
      });
      return await evaluateSeedTts(utterances, {
        asr: recogniser?.transcriber ?? this.transcriber!,
        concurrency: c.asrConcurrency,
        readAudio: (a) => this.spool.read(a),
        saveItems: c.saveItems,
        saveAudioDir: c.saveAudioDir ?? null,
        signal: run.signal,
        onItem: (it) => {
          const e: Omit<AccuracyItem, 't'> = {
            type: 'accuracy.item',
            index: it.index,
            utteranceId: it.utteranceId,
            reference: it.reference,
            transcript: it.transcript,
            wer: it.wer,
            error: it.error,
            ...(it.detail === undefined ? {} : { detail: it.detail }),
          };
          run.events.emit(e);
        },
      });
    } finally {
      await recogniser?.close();
      await this.spool.dispose();
    }
  }

  /** Releases the spool without evaluating (the run ended before its dispatch). */
  async dispose(): Promise<void> {
    await this.spool.dispose();
  }
}

/** The counts the verdict needs from the result keys. */
export function gateCounts(keys: Record<string, unknown>): {
  evaluated: number;
  mean: number | null;
  median: number | null;
  excluded: number;
} {
  const v = (k: string): number | null => {
    const x = keys[k];
    return typeof x === 'number' ? x : null;
  };
  const n = (k: string): number => v(k) ?? 0;
  return {
    evaluated: n('seed_tts_content_evaluated'),
    mean: v('seed_tts_content_error_mean'),
    median: v('seed_tts_content_error_median'),
    excluded: n('seed_tts_request_failed') + n('seed_tts_no_pcm') + n('seed_tts_asr_failed'),
  };
}
