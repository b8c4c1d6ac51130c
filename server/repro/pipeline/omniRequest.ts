/**
 * One request through the three stages: the thinker streams text at the
 * token rate; for audio, the talker turns each token into codes, the chunker
 * forms windows, and Code2Wav decodes them on the request's worker. Audio
 * is delivered strictly in chunk order. When the client goes away (signal
 * aborted), no further token or window is produced and the pool drops the
 * request's queued windows and its row in a running batch.
 */
import type { Code2WavPool } from '../code2wav/pool.ts';
import type { TelemetryOutbox } from '../telemetry/outbox.ts';
import type { ChatRequest } from '../requests/chatRequest.ts';
import { promptWords, sleepUntil, thinkerTokens } from './thinker.ts';
import { CodeChunker, CONTEXT_CODES, talkerCodes, type CodeWindow } from './talker.ts';

export interface OmniDeps {
  pool: Code2WavPool;
  telemetry: TelemetryOutbox;
  tokenRate: number;
  codesPerToken: number;
  defaultMaxTokens: number;
  seed: number;
}

export interface OmniSink {
  /** A text token; `tokens` is the cumulative count. */
  text(delta: string, tokens: number, isLast: boolean, finish: 'stop' | 'length'): void;
  /** A decoded audio window (a complete WAV file). */
  audio(wav: Uint8Array, samples: number, isLast: boolean): void;
}

export interface OmniOutcome {
  tokens: number;
  textFinish: 'stop' | 'length';
  audioWindows: number;
}

/** How many text tokens the thinker produces for this request. */
export function plannedTokens(
  req: ChatRequest,
  defaultMaxTokens: number,
): { count: number; finish: 'stop' | 'length' } {
  const natural = Math.max(4, Math.min(256, promptWords(req.userText).length || defaultMaxTokens));
  if (req.ignoreEos) return { count: req.maxTokens ?? natural, finish: 'length' };
  if (req.maxTokens !== null && req.maxTokens < natural) return { count: req.maxTokens, finish: 'length' };
  return { count: natural, finish: 'stop' };
}

export async function runOmniRequest(
  key: string,
  requestId: string,
  req: ChatRequest,
  deps: OmniDeps,
  sink: OmniSink,
  signal: AbortSignal,
): Promise<OmniOutcome> {
  const { pool, telemetry } = deps;
  const plan = plannedTokens(req, deps.defaultMaxTokens);
  const tokens = thinkerTokens(promptWords(req.userText), plan.count, deps.seed);
  const chunker = new CodeChunker();
  const codeBudget = req.maxNewTokens ?? Infinity;
  let audioChain: Promise<void> = Promise.resolve();
  let audioWindows = 0;
  // Set from the audio chain's callback; the assertion keeps TypeScript from narrowing it to null here.
  let audioError = null as Error | null;

  const submit = (w: CodeWindow) => {
    const decoded = pool.submit({
      key,
      requestId,
      chunkSeq: w.chunkSeq,
      cacheEpoch: 0,
      lastChunk: w.lastChunk,
      contextCodes: CONTEXT_CODES,
      codes: w.codes,
    });
    decoded.catch(() => undefined); // observed through the chain below
    telemetry.emit({
      type: 'stage.progress',
      requestId,
      stage: 'talker',
      count: chunker.total,
      ...(w.lastChunk ? { done: true } : {}),
    });
    audioChain = audioChain.then(async () => {
      const r = await decoded;
      if (signal.aborted || !r.wav) return;
      audioWindows++;
      sink.audio(r.wav, r.samples, w.lastChunk);
      telemetry.emit({
        type: 'stage.progress',
        requestId,
        stage: 'code2wav',
        count: audioWindows,
        ...(w.lastChunk ? { done: true } : {}),
      });
    });
    audioChain.catch((e: Error) => {
      audioError ??= e;
    });
  };

  const t0 = performance.now();
  const interval = 1000 / deps.tokenRate;
  for (let i = 0; i < tokens.length && !signal.aborted && !audioError; i++) {
    await sleepUntil(t0 + (i + 1) * interval, signal);
    if (signal.aborted || audioError) break;
    const last = i === tokens.length - 1;
    sink.text(tokens[i], i + 1, last, plan.finish);
    if ((i + 1) % 32 === 0 || last)
      telemetry.emit({
        type: 'stage.progress',
        requestId,
        stage: 'thinker',
        count: i + 1,
        ...(last ? { done: true } : {}),
      });
    if (req.wantAudio) {
      const room = Math.max(0, codeBudget - chunker.total);
      // Fractional codes per token are spread evenly over the tokens.
      const n = Math.floor((i + 1) * deps.codesPerToken) - Math.floor(i * deps.codesPerToken);
      for (const w of chunker.push(talkerCodes(tokens[i], i, deps.seed, Math.min(n, room)))) submit(w);
    }
  }
  if (req.wantAudio && !signal.aborted && !audioError) {
    const last = chunker.finish();
    if (last) submit(last);
  }
  // A window stuck behind a hung worker must not keep a departed client's
  // request alive: stop waiting as soon as the client is gone.
  const gone = new Promise<void>((r) =>
    signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true }),
  );
  await Promise.race([audioChain.catch(() => undefined), gone]);
  if (audioError) throw audioError;
  return { tokens: tokens.length, textFinish: plan.finish, audioWindows };
}
