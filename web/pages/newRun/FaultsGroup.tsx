/** The form's Watchdog and faults group (embedded target only): the watchdog timeout and the fault plan. */
import { useContext } from 'react';
import { C2W_PHASES } from '../../../shared/types.ts';
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { FormContext, NumberField, SelectField } from '../../components/form/Fields.tsx';

export function FaultsGroup({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  const faults = (spec.target as Extract<RunSpec['target'], { kind: 'embedded' }>).faults ?? [];
  return (
    <fieldset className="group">
      <legend>Watchdog and faults</legend>
      <NumberField
        path="target.watchdogTimeoutS"
        label="Watchdog timeout (s)"
        hint="0 = off; keep it well below the request timeout"
      />
      <div className="faults wide">
        <div className="faults-head">
          <span>Faults</span>
          <button
            type="button"
            onClick={() => f.set('target.faults', [...faults, { phase: 'hift', kind: 'block', after: 3 }])}
          >
            Add fault
          </button>
        </div>
        {faults.length === 0 && <p className="muted">No faults: the target runs clean.</p>}
        {faults.map((_, i) => (
          <div className="fault" key={i}>
            <SelectField path={`target.faults.${i}.phase`} label="Phase" options={C2W_PHASES} />
            <SelectField path={`target.faults.${i}.kind`} label="Kind" options={['block', 'spin', 'slow']} />
            <NumberField path={`target.faults.${i}.after`} label="After N ops" />
            <NumberField path={`target.faults.${i}.p`} label="Probability" />
            <NumberField path={`target.faults.${i}.minInflight`} label="Min in flight" />
            <button
              type="button"
              className="link"
              onClick={() =>
                f.set(
                  'target.faults',
                  faults.filter((__, j) => j !== i),
                )
              }
              aria-label={`Remove fault ${i + 1}`}
            >
              remove
            </button>
          </div>
        ))}
      </div>
    </fieldset>
  );
}
