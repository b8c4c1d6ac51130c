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

/** The prompt of one sample: `n` words drawn from its own seed. */
function promptText(n: number, seed: number): string {
  const rng = new Rng(seed);
  const words = new Array<string>(n);
  for (let w = 0; w < n; w++) words[w] = VOCAB[rng.int(0, VOCAB.length - 1)];
  return words.join(' ');
}

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

  /** Built on each read (the engine reads it once, when it sends the request). */
  get messages(): unknown[] {
    return [{ role: 'user', content: [{ type: 'text', text: promptText(this.promptLen, this.wordSeed) }] }];
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
