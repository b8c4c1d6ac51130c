/** The form's Dispatch group: how many requests, how many at once, at what rate (and ramp-up), seed, warmups, extra body. */
import { useContext } from 'react';
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { CheckField, FormContext, NumberField, ParsedArea, SelectField } from '../../components/form/Fields.tsx';
import { json, parseJson } from './fieldText.ts';

export function DispatchGroup({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  return (
    <fieldset className="group">
      <legend>Dispatch</legend>
      <NumberField path="numPrompts" label="Requests (num prompts)" />
      <NumberField path="maxConcurrency" label="Max concurrency" empty={null} hint="empty = unbounded" />
      <NumberField path="requestRate" label="Request rate (req/s)" allowText="inf" hint="a number or inf" />
      <NumberField path="burstiness" label="Burstiness" />
      <SelectField
        path="rampUp.strategy"
        label="Ramp-up"
        options={['none', 'linear', 'exponential']}
        hint="request rate must be inf"
        onPick={(k) =>
          f.set(
            'rampUp',
            k === 'none'
              ? undefined
              : { strategy: k, startRps: spec.rampUp?.startRps ?? 1, endRps: spec.rampUp?.endRps ?? 10 },
          )
        }
      />
      {spec.rampUp && (
        <>
          <NumberField path="rampUp.startRps" label="Ramp-up start (req/s)" />
          <NumberField path="rampUp.endRps" label="Ramp-up end (req/s)" />
        </>
      )}
      <CheckField path="selfTimed" label="Self-timed (trace timestamps)" />
      <NumberField path="seed" label="Seed" />
      <NumberField path="numWarmups" label="Warmups" />
      <NumberField path="readyCheckTimeoutS" label="Ready check timeout (s)" hint="optional" />
      <ParsedArea path="extraBody" label="Extra body (JSON, merged at the top level)" format={json} parse={parseJson} />
    </fieldset>
  );
}
