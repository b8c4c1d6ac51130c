/**
 * The gate's recogniser for one evaluation: the transcription server at
 * `--asr-url`, or stallscope's own, started now (after the benchmark's
 * sockets are closed) and stopped when the evaluation ends
 * (docs/design.md#local-asr). Either way the same client uploads to it. A
 * local server that cannot start, or dies, fails each transcription with
 * the reason (the run then has nothing evaluated and fails), and its stderr
 * is shown once.
 */
import type { SeedTtsEvalConfig } from '../../../shared/config/runConfig.ts';
import { DEFAULT_ASR_START_TIMEOUT_S, DEFAULT_ASR_TIMEOUT_S } from '../../../shared/config/runConfig.ts';
import { AsrClient, AsrError } from './asrClient.ts';
import type { Transcriber } from './evaluate.ts';
import { LocalAsrServer, PARAFORMER_ZH } from './localAsr.ts';
import { scoringLang } from './score.ts';

export interface Recogniser {
  transcriber: Transcriber;
  /** Where it runs, for the log. */
  where: string;
  /** The model it runs: `--asr-model`, or paraformer-zh for Chinese on the local server (as upstream). */
  model: string;
  close(): Promise<void>;
}

export async function openRecogniser(
  c: SeedTtsEvalConfig,
  locale: string,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<Recogniser> {
  const client = (baseUrl: string): AsrClient =>
    new AsrClient({
      baseUrl,
      model: c.asrModel,
      headers: c.asrHeaders,
      connections: c.asrConcurrency,
      timeoutS: c.asrTimeoutS ?? DEFAULT_ASR_TIMEOUT_S,
    });
  if (!c.localAsr) {
    const remote = client(c.asrUrl ?? '');
    return { transcriber: remote, where: remote.url, model: c.asrModel, close: () => remote.close() };
  }
  const { python, startTimeoutS } = c.localAsr;
  const language = scoringLang(locale);
  const model = language === 'zh' ? PARAFORMER_ZH : c.asrModel;
  log(`Starting the transcription server: ${python} python/asr_server.py (${model})`);
  let server: LocalAsrServer;
  try {
    server = await LocalAsrServer.start(
      {
        python,
        model: c.asrModel,
        language,
        startTimeoutS: startTimeoutS ?? DEFAULT_ASR_START_TIMEOUT_S,
        log,
      },
      signal,
    );
  } catch (e) {
    const why = `the transcription server did not start: ${(e as Error).message}`;
    log(why);
    const firstLine = why.split('\n')[0];
    const transcriber = { transcribe: () => Promise.reject(new AsrError(firstLine)) };
    return { transcriber, where: python, model, close: async () => {} };
  }
  const local = client(server.url);
  let shown = false;
  const failed = (): string | null => {
    const f = server.failure();
    if (f && !shown) {
      shown = true;
      log(f);
    }
    return f ? f.split('\n')[0] : null;
  };
  return {
    transcriber: {
      async transcribe(wav, language, s) {
        const before = failed();
        if (before) throw new AsrError(before);
        try {
          return await local.transcribe(wav, language, s);
        } catch (e) {
          throw new AsrError(failed() ?? (e as Error).message);
        }
      },
    },
    where: `${local.url} (stallscope's own, ${python})`,
    model,
    close: async () => {
      failed();
      await local.close();
      await server.stop();
    },
  };
}
