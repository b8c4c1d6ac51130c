/**
 * What a run would hold in the dashboard's memory, estimated from its spec,
 * so a spec inside every field's limits cannot still exhaust the heap by
 * their product (2,000 requests in flight × a million-word prompt). Two
 * parts: the prompts held at once (each in-flight request holds its text, its
 * JSON body and its bytes on the wire), and the per-request state a run keeps
 * until it ends (the engine's record of each request: timings, inter-token
 * latencies and text, for the vLLM result). Checked by the form and the server alike.
 */
import { count } from '../format.ts';

/** The parts of a RunSpec (shared/config/runSpec.ts) the estimate reads. */
export interface BudgetSpec {
  numPrompts: number;
  maxConcurrency: number | null;
  dataset: { name: string; inputLen?: number; outputLen?: number };
}

/** The dashboard's budget for one run. */
export const RUN_MEMORY_BUDGET_BYTES = 1024 ** 3;
/** A random-dataset word and its space (the vocabulary's words are 3-11 letters). */
const BYTES_PER_PROMPT_WORD = 8;
/** Text, JSON body, send buffer. */
const PROMPT_COPIES = 3;
/** A request's record without its per-token arrays. */
const BYTES_PER_REQUEST = 512;
/** An inter-token latency (a double) and the token's text. */
const BYTES_PER_OUTPUT_TOKEN = 16;

export interface MemoryEstimate {
  inFlight: number;
  promptBytesEach: number;
  promptBytes: number;
  stateBytesEach: number;
  stateBytes: number;
  total: number;
}

export function estimateRunMemory(spec: BudgetSpec): MemoryEstimate {
  const n = spec.numPrompts;
  const inFlight = Math.min(n, spec.maxConcurrency ?? n);
  const inputLen = spec.dataset.name === 'random' ? (spec.dataset.inputLen ?? 0) : 0;
  const outputLen = spec.dataset.name === 'trace' ? 0 : (spec.dataset.outputLen ?? 0);
  const promptBytesEach = inputLen * BYTES_PER_PROMPT_WORD * PROMPT_COPIES;
  const stateBytesEach = BYTES_PER_REQUEST + outputLen * BYTES_PER_OUTPUT_TOKEN;
  const promptBytes = inFlight * promptBytesEach;
  const stateBytes = n * stateBytesEach;
  return { inFlight, promptBytesEach, promptBytes, stateBytesEach, stateBytes, total: promptBytes + stateBytes };
}

function size(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v >= 100 || u === 0 ? 0 : 1)} ${units[u]}`;
}

/**
 * An error issue when the run would not fit the budget, saying why and how
 * much; null when it fits. It carries its own code: the spec is valid field
 * by field, only too big as a whole.
 */
export function memoryBudgetIssue(
  spec: BudgetSpec,
  budget = RUN_MEMORY_BUDGET_BYTES,
): { field: string; message: string; code: 'API_MEMORY_BUDGET' } | null {
  const e = estimateRunMemory(spec);
  if (e.total <= budget) return null;
  const prompts =
    e.promptBytes > 0
      ? `${count(e.inFlight)} requests in flight × a prompt of ${count(spec.dataset.inputLen ?? 0)} words (≈ ${size(e.promptBytesEach)} each with its body and send buffer) = ${size(e.promptBytes)}, plus `
      : '';
  const promptsDominate = e.promptBytes >= e.stateBytes;
  return {
    field: promptsDominate ? 'dataset.inputLen' : 'numPrompts',
    message:
      `the run would hold about ${size(e.total)} in memory (${prompts}${count(spec.numPrompts)} requests' results ≈ ${size(e.stateBytesEach)} each = ${size(e.stateBytes)}), over the ${size(budget)} budget: ` +
      (promptsDominate ? 'lower maxConcurrency or dataset.inputLen' : 'lower numPrompts or the output length'),
    code: 'API_MEMORY_BUDGET',
  };
}

/*
 * A request's byte budget (docs/design.md#peer-bounds): what one request may
 * accumulate from the server, counting every byte it sends for the request
 * (SSE events, PCM, realtime frames of any type, kept or not). The run
 * declares how long an answer can be — its output length in tokens, and for
 * the backends that speak their prompt, the prompt's length — and a token's
 * worth of answer is at most REQUEST_BYTES_PER_TOKEN on the wire: about a
 * quarter second of 24 kHz PCM16 speech in base64 (16 KB) with its event's
 * JSON, doubled for slower speech and higher rates. The budget is a multiple
 * of that expected size, so a real answer never meets it, between a floor (a
 * short answer still carries a few large audio events) and a ceiling (what
 * any one request may hold, far below V8's largest string).
 */
/** Wire bytes one declared token may bring (text and its speech, in their events). */
export const REQUEST_BYTES_PER_TOKEN = 32 * 1024;
/** The budget over the expected size. */
export const REQUEST_BUDGET_MULTIPLE = 4;
/** No request's budget is below this, nor below two of the run's largest events (`--max-event-bytes`). */
export const REQUEST_BUDGET_FLOOR_BYTES = 32 * 1024 * 1024;
/** Nor above this, whatever the run declared (but for a larger `--max-event-bytes`). */
export const REQUEST_BUDGET_CEILING_BYTES = 256 * 1024 * 1024;

/** The byte budget of a request whose answer may be `declaredTokens` tokens long. */
export function requestBudgetBytes(declaredTokens: number, maxEventBytes = 0): number {
  const tokens = Number.isFinite(declaredTokens) && declaredTokens > 0 ? declaredTokens : 0;
  const expected = tokens * REQUEST_BYTES_PER_TOKEN * REQUEST_BUDGET_MULTIPLE;
  const floor = Math.max(REQUEST_BUDGET_FLOOR_BYTES, 2 * maxEventBytes);
  return Math.max(floor, Math.min(REQUEST_BUDGET_CEILING_BYTES, expected));
}
