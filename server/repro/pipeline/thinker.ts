/**
 * Stage 0, the thinker: streams text tokens at a fixed rate. For a TTS-style
 * prompt it speaks the user's words back (as MiniCPM-o's thinker does with a
 * TTS template); the text is deterministic for a prompt and seed.
 */
import { hashInts, mulberry32 } from '../code2wav/kernels/rng.ts';

const FILLER = ['the', 'signal', 'is', 'clear', 'and', 'steady', 'now', 'we', 'speak', 'again'];

/** The words a request's prompt asks the thinker to say. */
export function promptWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0);
}

/** Text tokens (with their leading space) for `count` tokens. */
export function thinkerTokens(words: string[], count: number, seed: number): string[] {
  const rand = mulberry32(hashInts(seed, words.length, 0x7417));
  const source =
    words.length > 0 ? words : FILLER.map((_, i) => FILLER[Math.floor(rand() * FILLER.length + i) % FILLER.length]);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(`${i === 0 ? '' : ' '}${source[i % source.length]}`);
  return out;
}

/** Sleeps until `atMs` (performance.now() clock) unless aborted first. */
export function sleepUntil(atMs: number, signal: AbortSignal): Promise<void> {
  const wait = atMs - performance.now();
  if (signal.aborted) return Promise.resolve();
  if (wait <= 0) return new Promise((r) => setImmediate(r));
  return new Promise((resolve) => {
    const t = setTimeout(done, wait);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
