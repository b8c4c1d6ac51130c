/**
 * A run's per-request byte budget (docs/design.md#peer-bounds): what one
 * request may accumulate from the server is bounded by what the run
 * declared. The declared answer length is the largest of the samples'
 * output lengths (`max_tokens`, a Seed-TTS row's `max_new_tokens`, a trace
 * row's) and any length cap `--extra-body` sets over them, plus the prompt's
 * length for a backend that speaks its prompt; the formula is
 * shared/config/memoryBudget.ts's. One figure per run: the largest request's,
 * so no request of the run meets a bound its own row did not declare.
 */
import { requestBudgetBytes } from '../../../shared/config/memoryBudget.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';
import type { Backend } from './backend.ts';

/** Body keys a server reads as the answer's length cap; `--extra-body` may raise them above the dataset's. */
const LENGTH_KEYS = ['max_tokens', 'max_completion_tokens', 'max_new_tokens'] as const;

export function runRequestBudget(
  config: RunConfig,
  samples: readonly Pick<SampleRequest, 'outputLen' | 'promptLen'>[],
  backend: Pick<Backend, 'speaksPrompt'>,
): number {
  let declared = 0;
  for (const s of samples) {
    const tokens = positive(s.outputLen) + (backend.speaksPrompt ? positive(s.promptLen) : 0);
    if (tokens > declared) declared = tokens;
  }
  const extra = config.workload.extraBody ?? {};
  for (const key of LENGTH_KEYS) declared = Math.max(declared, positive(extra[key]));
  return requestBudgetBytes(declared, config.limits.maxEventBytes ?? 0);
}

function positive(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}
