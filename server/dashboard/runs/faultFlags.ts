/**
 * The embedded reproduction server's fault plan as `stallscope repro-server`
 * flags. The RunSpec's run configuration is built in shared/
 * (shared/config/runSpec.ts), once per run.
 */
import type { RunSpec } from '../../../shared/config/runSpec.ts';

/** `--fault` flags of `stallscope repro-server` for the spec's fault plan. */
export function faultFlags(faults: Extract<RunSpec['target'], { kind: 'embedded' }>['faults']): string[] {
  return faults.flatMap((f) => {
    let s = `${f.phase}:${f.kind}`;
    if (f.after !== undefined) s += `:after=${f.after}`;
    if (f.p !== undefined) s += `:p=${f.p}`;
    if (f.minInflight !== undefined) s += `:min-inflight=${f.minInflight}`;
    return ['--fault', s];
  });
}
