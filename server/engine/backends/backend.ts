/**
 * A benchmark backend as the engine plugs it in (docs/design.md#backends):
 * how one request's body is built and how the answer is read into the
 * record, and what the backend adds to the result. Everything else — the
 * dispatch, the structural timeouts, the retry loop (how many attempts is
 * the backend's), the breaker and every stop rule, the bounded stop, the live events, the metrics and the result
 * file — is shared and never asks which backend runs.
 */
import type { BackendName } from '../../../shared/config/backends.ts';
import type { MetricInput, RecordList } from '../../../shared/metrics/input.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';
import type { AttemptFn, AttemptTarget, Sweeper, ResponseReading } from '../transport/index.ts';

export interface Backend {
  readonly name: BackendName;
  /** The request body for one sample, as vLLM-Omni's request function for this backend builds it. */
  buildBody(config: RunConfig, sample: SampleRequest): Promise<string | Uint8Array>;
  /**
   * HTTP backends: how a 200's body is read (the shared HTTP attempt sends, times and classifies), made
   * once per run from the environment (`warn` for a setting it cannot use). Absent with `attempt`.
   */
  reading?(env: NodeJS.ProcessEnv, warn: (message: string) => void): ResponseReading;
  /** Backends that are not one HTTP request/response (a WebSocket session): their own attempt. */
  readonly attempt?: AttemptFn;
  /**
   * The sockets such an attempt opens for the run `target` belongs to (its WebSockets), swept with the
   * run's HTTP connections within the same deadline (docs/design.md#bounded-stop). Absent: none.
   */
  sockets?(target: AttemptTarget): Sweeper;
  /**
   * Keys this backend adds to the result file, after vLLM's metric keys and before stallscope's run keys
   * (records in dataset order; `detailed`: `--save-detailed`; the run's config, for a gate it sets). Absent: none.
   */
  readonly resultKeys?: (
    records: RecordList<MetricInput>,
    detailed: boolean,
    config?: RunConfig,
  ) => Record<string, unknown>;
  /**
   * Whether the in-process client warm-up (warm/warmClient.ts, which streams a recorded chat answer over
   * HTTP) exercises this backend's paths; a backend it does not fit says false and starts cold.
   */
  readonly warmsWithRecordedChat: boolean;
  /**
   * The answer is the prompt spoken (speech, realtime TTS): its length is declared by the prompt's as much as by
   * the output length, and both size the request's byte budget (requestBudget.ts). Absent: the output length alone.
   */
  readonly speaksPrompt?: boolean;
  /**
   * Attempts a request may make when the transport fails, as this backend's upstream request function makes
   * them (docs/design.md#retries). Absent: vLLM-Omni's chat function's 4 (the first and 3 retries, 100 ms apart).
   */
  readonly maxAttempts?: number;
}
