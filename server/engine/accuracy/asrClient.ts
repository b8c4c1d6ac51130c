/**
 * An OpenAI-compatible transcription client (`POST BASE/v1/audio/transcriptions`,
 * what `vllm serve openai/whisper-large-v3` serves): one multipart upload per
 * utterance with the WAV file, the model, the language and temperature 0.
 * The client owns its connection pool (closed by `close()`; undici is loaded
 * with it at the first transcription, not with every `stallscope bench`), and every
 * request has a deadline. The answer is read up to `ASR_ANSWER_CAP` bytes and
 * no further: the recogniser is a peer, and the size of its answer is its
 * choice, not ours (a 1 GB stream would otherwise be held whole in memory).
 */
import { fetchOn, lazyPool, readCapped, type LazyPool } from '../transport/simpleClient.ts';
import { trimTrailingSlashes } from '../../../shared/text.ts';

export interface AsrClientOptions {
  /** Base URL of the recognition server; `/v1/audio/transcriptions` is appended. */
  baseUrl: string;
  model: string;
  headers?: Record<string, string>;
  /** Connections kept at most (the evaluation's concurrency). */
  connections: number;
  /** Seconds for one transcription, upload to answer. */
  timeoutS: number;
  /** Bytes of one answer read at most (default ASR_ANSWER_CAP); a longer answer fails that transcription. */
  answerCap?: number;
}

/**
 * The most bytes of one transcription answer read: a transcript of the
 * longest Seed-TTS utterance is a few hundred bytes of JSON, Whisper's
 * verbose_json with segments a few tens of KiB.
 */
export const ASR_ANSWER_CAP = 1024 * 1024;

export class AsrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AsrError';
  }
}

export function transcriptionUrl(baseUrl: string): string {
  return `${trimTrailingSlashes(baseUrl)}/v1/audio/transcriptions`;
}

export class AsrClient {
  private readonly pool: LazyPool;
  readonly url: string;

  constructor(private readonly o: AsrClientOptions) {
    this.pool = lazyPool({ connections: o.connections });
    this.url = transcriptionUrl(o.baseUrl);
  }

  /** The recognised text (trimmed), or throws AsrError saying what went wrong. */
  async transcribe(wav: Uint8Array, language: string, signal?: AbortSignal): Promise<string> {
    const { undici, agent } = await this.pool.get();
    const form = new undici.FormData();
    form.append('file', new Blob([wav.slice()], { type: 'audio/wav' }), 'audio.wav');
    form.append('model', this.o.model);
    form.append('language', language);
    form.append('temperature', '0');
    form.append('response_format', 'json');
    const deadline = AbortSignal.timeout(this.o.timeoutS * 1000);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let res;
    try {
      res = await fetchOn(undici, agent, this.url, {
        method: 'POST',
        body: form,
        headers: this.o.headers,
        signal: combined,
      });
    } catch (e) {
      if (deadline.aborted) throw new AsrError(`no answer within ${this.o.timeoutS} s`);
      if (signal?.aborted) throw new AsrError('interrupted');
      const err = e as Error & { cause?: Error };
      throw new AsrError(`${err.message}${err.cause ? `: ${err.cause.message}` : ''}`);
    }
    let text: string;
    try {
      const cap = this.o.answerCap ?? ASR_ANSWER_CAP;
      const read = res.body ? await readCapped(res.body, cap) : null;
      if (read?.over) throw new AsrError(`the answer is larger than ${cap} bytes; not read further`);
      text = read ? read.bytes.toString('utf8') : '';
    } catch (e) {
      if (e instanceof AsrError) throw e;
      if (deadline.aborted) throw new AsrError(`no answer within ${this.o.timeoutS} s`);
      if (signal?.aborted) throw new AsrError('interrupted');
      throw new AsrError(`reading the answer: ${(e as Error).message}`);
    }
    if (res.status !== 200) throw new AsrError(`HTTP ${res.status}: ${text.slice(0, 300)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AsrError(`the answer is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
    }
    const value = (body as { text?: unknown } | null)?.text;
    if (typeof value !== 'string') throw new AsrError(`the answer has no "text" string: ${text.slice(0, 200)}`);
    return value.trim();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
