/**
 * `seed-tts` dataset: `{root}/{locale}/meta.lst` rows
 * `utt_id|ref_text|prompt_wav|target_text` and the prompt WAVs beside it.
 * Builds the MiniCPM-o Seed-TTS chat body vLLM-Omni sends: a system prompt,
 * the target text as the user message, and top-level `ref_audio` (data URI),
 * `ref_text`, `task_type`, `language`, `max_new_tokens`, `modalities`.
 * The WAVs are read at send time (1,088 of them would be hundreds of MB as
 * base64); their existence is checked up front, as upstream skips rows whose
 * WAV is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StallscopeError } from '../../../shared/errors.ts';
import { PythonRandom } from '../random/pythonRandom.ts';
import { estimateTokens, type LoadedDataset, type SampleRequest } from './sample.ts';

/** vLLM-Omni's default system prompt for Seed-TTS over chat completions (kept identical for interop). */
export const SEED_TTS_DEFAULT_OMNI_SYSTEM_PROMPT =
  'You are Qwen, a virtual human developed by the Qwen Team, Alibaba Group, ' +
  'capable of perceiving auditory and visual inputs, as well as generating text and speech.\n' +
  'For this request you act as a text-to-speech engine with zero-shot voice cloning: ' +
  'the API provides reference audio and its transcript (ref_audio, ref_text) and task_type Base. ' +
  'The user message is the exact text you must speak. ' +
  'Synthesize natural speech in the same language as that user text, ' +
  'matching the timbre, prosody, and speaking style of the reference audio while reading the new content clearly.';

export const SEED_TTS_DEFAULT_OUTPUT_LEN = 2048;

export interface SeedTtsOptions {
  root: string;
  locale: string;
  numPrompts: number;
  seed: number;
  noOversample: boolean;
  disableShuffle?: boolean;
  outputLen?: number;
  systemPrompt?: string;
  /** `--seed-tts-file-ref-audio`: send `ref_audio` as a file:// URI (the server reads it; it needs --allowed-local-media-path) instead of inlining the WAV. */
  fileRefAudio?: boolean;
}

interface Row {
  uttId: string;
  refText: string;
  wavPath: string;
  target: string;
}

export function loadSeedTts(o: SeedTtsOptions): LoadedDataset {
  const dir = join(resolve(o.root), o.locale);
  const metaPath = join(dir, 'meta.lst');
  let text: string;
  try {
    text = readFileSync(metaPath, 'utf8');
  } catch (e) {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${metaPath}: ${(e as Error).message}`, 'dataset.path');
  }
  const warnings: string[] = [];
  const rows = parseMeta(text, dir, warnings);
  // random.Random(seed).shuffle(rows), as vLLM-Omni: the same --seed walks the rows in the same order.
  if (!o.disableShuffle) new PythonRandom(o.seed).shuffle(rows);
  const picked: Row[] = [];
  let missing = 0;
  for (const row of rows) {
    if (picked.length >= o.numPrompts) break;
    if (!existsSync(row.wavPath)) {
      missing++;
      continue;
    }
    picked.push(row);
  }
  if (missing > 0) warnings.push(`seed-tts: skipped ${missing} row(s) whose prompt wav is missing`);
  if (picked.length === 0)
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${metaPath}: no usable rows`, 'dataset.path');
  // Upstream oversamples unless --no-oversample: random.seed(seed), then random.choice(rows) per missing row.
  if (picked.length < o.numPrompts && !o.noOversample) {
    const base = picked.slice();
    warnings.push(
      `seed-tts: oversampling ${base.length} rows to ${o.numPrompts} (pass --no-oversample to send ${base.length})`,
    );
    const rng = new PythonRandom(o.seed);
    while (picked.length < o.numPrompts) picked.push(rng.choice(base));
  }
  const outputLen = o.outputLen ?? SEED_TTS_DEFAULT_OUTPUT_LEN;
  const system = o.systemPrompt ?? SEED_TTS_DEFAULT_OMNI_SYSTEM_PROMPT;
  const language = o.locale === 'en' ? 'English' : o.locale === 'zh' ? 'Chinese' : o.locale;
  const samples = picked.map((row): SampleRequest => ({
    messages: [
      { role: 'system', content: [{ type: 'text', text: system }] },
      { role: 'user', content: [{ type: 'text', text: row.target }] },
    ],
    promptLen: estimateTokens(`${system}\n${row.target}`),
    outputLen,
    rowBody: {
      ...(o.fileRefAudio ? { ref_audio: pathToFileURL(row.wavPath).href } : {}),
      ref_text: row.refText,
      task_type: 'Base',
      language,
      max_new_tokens: outputLen,
    },
    bodyDefaults: { modalities: ['text', 'audio'] },
    seedTts: { utteranceId: row.uttId, locale: o.locale, targetText: row.target, wavPath: row.wavPath },
    loadRowBody: o.fileRefAudio
      ? undefined
      : async () => ({ ref_audio: `data:audio/wav;base64,${(await readFile(row.wavPath)).toString('base64')}` }),
  }));
  return { samples, warnings };
}

function parseMeta(text: string, dir: string, warnings: string[]): Row[] {
  const rows: Row[] = [];
  let short = 0;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '').trim();
    if (!line || line.startsWith('#')) continue;
    const f = line.split('|');
    if (f.length < 4 || !f[3].trim()) {
      short++;
      continue;
    }
    rows.push({ uttId: f[0], refText: f[1], wavPath: join(dir, f[2]), target: f[3] });
  }
  if (short > 0) warnings.push(`seed-tts: skipped ${short} malformed row(s) (fewer than 4 fields or empty target)`);
  return rows;
}
