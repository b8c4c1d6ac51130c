/**
 * The form's Timeouts and breaker group: the timeouts, fail-fast, the stop
 * rules (each said in words as it is typed; docs/design.md#stop-rules),
 * liveness at the stall, and the connection mode.
 */
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { CheckField, NumberField, ParsedArea, SelectField } from '../../components/form/Fields.tsx';
import { lines, splitLines, STOP_RULES_PLACEHOLDER, stopRulesInWords } from './fieldText.ts';

export function TimeoutsGroup({ spec }: { spec: RunSpec }) {
  return (
    <fieldset className="group">
      <legend>Timeouts and breaker</legend>
      <NumberField path="timeouts.totalS" label="Total timeout (s)" hint="≤ 0 = legacy 6 h" />
      <NumberField path="timeouts.firstByteS" label="First-byte timeout (s)" hint="optional" />
      <NumberField path="timeouts.idleS" label="Idle timeout (s)" hint="optional" />
      <CheckField path="failFast" label="Fail fast on the first timeout" hint="cancel everything else, fail closed" />
      <ParsedArea
        path="stopOn"
        label="Stop rules (one per line)"
        hint={stopRulesInWords(spec.stopOn)}
        placeholder={STOP_RULES_PLACEHOLDER}
        format={lines}
        parse={splitLines}
      />
      <CheckField
        path="livenessAtStall"
        label="Ask the server what still answers at the first stall"
        hint="GET /health, GET /v1/models and one short text-only request, each bounded to 2 s"
      />
      <SelectField
        path="connectionMode"
        label="Connections"
        options={['per_request', 'keep_alive']}
        hint="per_request: a new connection per request, as vLLM-Omni (TTFT includes the connect)"
      />
    </fieldset>
  );
}
