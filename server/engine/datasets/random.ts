/**
 * `random` dataset: seeded synthetic prompts of a given input/output length
 * (lengths drawn uniformly within ±rangeRatio, as vLLM's random dataset).
 * Words stand in for tokens, since there is no tokenizer here.
 */
import { Rng } from '../random/xoshiro.ts';
import type { LoadedDataset, SampleRequest } from './sample.ts';

const VOCAB = (
  'time person year way day thing man world life hand part child eye woman place work week case point ' +
  'government company number group problem fact stage audio wave token stream model chunk frame voice ' +
  'signal cache window batch phase thread worker server client request result metric latency'
).split(' ');

/**
 * Each word and the space after it, laid out once: a prompt is written into
 * one buffer instead of an array of n strings joined (and then escaped again
 * by JSON.stringify), which a 1,024-word prompt per request made a tenth of a
 * run's CPU (docs/design.md#request-body). A word and its space are padded to
 * WORD_SLOT bytes and written as three 32-bit stores at any offset, the next
 * word overwriting the padding, faster than copying byte by byte
 * (docs/performance.md#random-prompts). Lower-case ASCII letters
 * only, so the bytes are the prompt's JSON string content as they stand.
 */
const WORD_SLOT = 12;
for (const w of VOCAB)
  if (!/^[a-z]+$/.test(w) || w.length + 1 > WORD_SLOT)
    throw new Error(
      `random dataset word ${JSON.stringify(w)} would need JSON escaping or more than ${WORD_SLOT} bytes`,
    );
/** Word k's slot as three little-endian 32-bit numbers, at 3k. */
const SLOTS = new Uint32Array(VOCAB.length * 3);
/** Word k's length and its space. */
const ADVANCE = new Uint8Array(VOCAB.length);
{
  const bytes = new Uint8Array(WORD_SLOT);
  const view = new DataView(bytes.buffer);
  VOCAB.forEach((w, k) => {
    bytes.fill(0);
    bytes.set(new TextEncoder().encode(`${w} `));
    for (let j = 0; j < 3; j++) SLOTS[k * 3 + j] = view.getUint32(j * 4, true);
    ADVANCE[k] = w.length + 1;
  });
}
/** Buffers reused by every prompt this process writes (the caller copies the bytes out before the next). */
let scratch = new Uint8Array(0);
let scratchView = new DataView(scratch.buffer);
let picks = new Uint8Array(0);

/** The prompt of one sample, `n` words drawn from its own seed, as bytes in the shared scratch buffer. */
function promptBytes(n: number, seed: number): Uint8Array {
  const need = n * WORD_SLOT + WORD_SLOT;
  if (scratch.length < need) {
    scratch = new Uint8Array(need);
    scratchView = new DataView(scratch.buffer);
  }
  if (picks.length < n) picks = new Uint8Array(n);
  new Rng(seed).fillInts(picks.subarray(0, n), 0, VOCAB.length - 1);
  const out = scratchView;
  let at = 0;
  for (let w = 0; w < n; w++) {
    const word = picks[w];
    const k = word * 3;
    out.setUint32(at, SLOTS[k], true);
    out.setUint32(at + 4, SLOTS[k + 1], true);
    out.setUint32(at + 8, SLOTS[k + 2], true);
    at += ADVANCE[word];
  }
  return scratch.subarray(0, Math.max(0, at - 1)); // without the last word's space
}

/** The user message around a prompt text (the body template puts a marker there, requestBody.ts). */
const messagesWith = (text: string): unknown[] => [{ role: 'user', content: [{ type: 'text', text }] }];

/** vLLM forces ignore_eos for the random dataset on OpenAI-compatible backends. */
const BODY_DEFAULTS = Object.freeze({ ignore_eos: true });

/** One sample: its lengths and the seed of its words (a few numbers, not the prompt). */
class RandomSample implements SampleRequest {
  readonly bodyDefaults = BODY_DEFAULTS;
  constructor(
    readonly promptLen: number,
    readonly outputLen: number,
    private readonly wordSeed: number,
  ) {}

  readonly messagesWith = messagesWith;

  /** Built on each read; the engine sends `promptBytes` instead, inside a body template. */
  get messages(): unknown[] {
    return messagesWith(Buffer.from(this.promptBytes()).toString('latin1'));
  }

  /** Valid until the next prompt is written: the caller copies them out at once. */
  promptBytes(): Uint8Array {
    return promptBytes(this.promptLen, this.wordSeed);
  }
}

/**
 * Prompts are built when a request is sent, not up front: a sample keeps its
 * length and its own seed (a few numbers), so 2,000 prompts of a million words
 * are never all in memory at once (docs/design.md#memory). The same seed gives the
 * same prompts on every machine and every read.
 */
export function loadRandom(
  numPrompts: number,
  inputLen: number,
  outputLen: number,
  rangeRatio: number,
  seed: number,
): LoadedDataset {
  const rng = new Rng(seed);
  const span = (len: number): [number, number] => [
    Math.max(1, Math.floor(len * (1 - rangeRatio))),
    Math.max(1, Math.ceil(len * (1 + rangeRatio))),
  ];
  const [inLo, inHi] = span(inputLen);
  const [outLo, outHi] = span(outputLen);
  const samples: SampleRequest[] = [];
  for (let i = 0; i < numPrompts; i++) {
    const n = rangeRatio > 0 ? rng.int(inLo, inHi) : inputLen;
    const out = rangeRatio > 0 ? rng.int(outLo, outHi) : outputLen;
    const wordSeed = rng.nextU32();
    samples.push(new RandomSample(n, out, wordSeed));
  }
  return { samples, warnings: [] };
}
