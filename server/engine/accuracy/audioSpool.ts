/**
 * Keeps each request's generated audio on disk until the Seed-TTS evaluation
 * reads it (docs/design.md#accuracy-gate, #memory). 1,088 answers of ~10 s of 24 kHz PCM are
 * over 500 MB, so nothing is held for the run: a stream's PCM is buffered
 * until 256 KiB, then appended to its own file; memory is bounded by the
 * requests in flight. One file per attempt (a retried request starts a new
 * record); the evaluation reads the file of each request's final record.
 * The folder is a fresh temporary one, removed by `dispose()`.
 */
import { mkdtemp, appendFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AudioSink } from '../transport/index.ts';

const FLUSH_BYTES = 256 * 1024;

export interface SpooledAudio {
  path: string;
  bytes: number;
  channels: number;
  sampleWidth: number;
  sampleRate: number;
}

class SpoolEntry implements AudioSink {
  bytes = 0;
  channels = 0;
  sampleWidth = 0;
  sampleRate = 0;
  ended = false;
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  private chain: Promise<void> = Promise.resolve();
  error: Error | null = null;

  constructor(
    readonly path: string,
    private readonly track: (p: Promise<void>) => void,
  ) {}

  write(pcm: Uint8Array, channels: number, sampleWidth: number, sampleRate: number): void {
    if (this.bytes === 0) {
      this.channels = channels;
      this.sampleWidth = sampleWidth;
      this.sampleRate = sampleRate;
    }
    // The parser's buffer is reused by nothing, but copy: the chunk's base64 decode is large and short-lived.
    this.buffered.push(Uint8Array.from(pcm));
    this.bufferedBytes += pcm.byteLength;
    this.bytes += pcm.byteLength;
    if (this.bufferedBytes >= FLUSH_BYTES) this.flush();
  }

  end(): void {
    this.ended = true;
    this.flush();
  }

  private flush(): void {
    if (this.bufferedBytes === 0) return;
    const data = Buffer.concat(this.buffered);
    this.buffered = [];
    this.bufferedBytes = 0;
    this.chain = this.chain.then(() =>
      appendFile(this.path, data).catch((e: Error) => {
        this.error ??= e;
      }),
    );
    this.track(this.chain);
  }

  /** Drop what is still buffered (a stream that never ended). */
  discard(): void {
    this.buffered = [];
    this.bufferedBytes = 0;
  }
}

export class AudioSpool {
  private readonly entries = new WeakMap<object, SpoolEntry>();
  /** The final record's entry of each ended request, by dataset index (the run keeps no record objects). */
  private readonly kept = new Map<number, SpoolEntry>();
  private readonly pending = new Set<Promise<void>>();
  private next = 0;

  private constructor(readonly dir: string) {}

  static async create(): Promise<AudioSpool> {
    return new AudioSpool(await mkdtemp(join(tmpdir(), 'stallscope-audio-')));
  }

  /** The sink of one attempt's stream; the record identifies it afterwards. */
  sinkFor(record: object): AudioSink {
    const entry = new SpoolEntry(join(this.dir, `${this.next++}.pcm`), (p) => {
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
    });
    this.entries.set(record, entry);
    return entry;
  }

  /** Request `index` ended with `record`: its audio is found by index from now on. */
  keep(index: number, record: object): void {
    const e = this.entries.get(record);
    if (e) this.kept.set(index, e);
  }

  /** Waits for every write in progress. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * The spooled audio of an ended request (see keep): null when its stream carried no
   * audio or did not end (a failed request). Throws the write error if the
   * spool could not be written.
   */
  audioOf(index: number): SpooledAudio | null {
    const e = this.kept.get(index);
    if (!e) return null;
    if (!e.ended) {
      e.discard();
      return null;
    }
    if (e.error) throw e.error;
    if (e.bytes === 0) return null;
    return { path: e.path, bytes: e.bytes, channels: e.channels, sampleWidth: e.sampleWidth, sampleRate: e.sampleRate };
  }

  async read(audio: SpooledAudio): Promise<Buffer> {
    return readFile(audio.path);
  }

  /** Removes the folder and everything in it. */
  async dispose(): Promise<void> {
    await this.settle();
    await rm(this.dir, { recursive: true, force: true });
  }
}
