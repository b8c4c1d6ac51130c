/** `liveness_at_stall` as the result file writes it (snake_case keys, with the sentence). */
import { livenessText, type LivenessReport } from '../../../../shared/stalls/liveness.ts';

export function livenessJson(r: LivenessReport): Record<string, unknown> {
  return {
    summary: livenessText(r),
    trigger: { kind: r.trigger.kind, at_s: r.trigger.atS, detail: r.trigger.detail },
    bound_ms: r.boundMs,
    probes: r.probes.map((p) => ({
      name: p.name,
      method: p.method,
      path: p.path,
      outcome: p.outcome,
      status: p.status,
      ms: p.ms,
      error: p.error,
      detail: p.detail,
    })),
    stalled: { in_flight: r.stalled.inFlight, silent_s: r.stalled.silentS },
  };
}
