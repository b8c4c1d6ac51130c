/** The form's Timeouts and breaker group, with the connection mode. */
import { CheckField, NumberField, SelectField } from '../../components/form/Fields.tsx';

export function TimeoutsGroup() {
  return (
    <fieldset className="group">
      <legend>Timeouts and breaker</legend>
      <NumberField path="timeouts.totalS" label="Total timeout (s)" hint="≤ 0 = legacy 6 h" />
      <NumberField path="timeouts.firstByteS" label="First-byte timeout (s)" hint="optional" />
      <NumberField path="timeouts.idleS" label="Idle timeout (s)" hint="optional" />
      <CheckField path="failFast" label="Fail fast on the first timeout" hint="cancel everything else, fail closed" />
      <SelectField
        path="connectionMode"
        label="Connections"
        options={['per_request', 'keep_alive']}
        hint="per_request: a new connection per request, as vLLM-Omni (TTFT includes the connect)"
      />
    </fieldset>
  );
}
