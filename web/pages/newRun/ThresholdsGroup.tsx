/** The form's Thresholds and metrics group: verdict thresholds, goodput SLOs, percentiles. */
import { NumberField, ParsedArea } from '../../components/form/Fields.tsx';
import { list, numList, splitList } from './fieldText.ts';

export function ThresholdsGroup() {
  return (
    <fieldset className="group">
      <legend>Thresholds and metrics</legend>
      <ParsedArea
        path="thresholds"
        label="Thresholds (one per line)"
        hint="e.g. failed==0, mean_ttft_ms<500"
        format={(v) => (Array.isArray(v) ? v.join('\n') : '')}
        parse={(t) =>
          t
            .split('\n')
            .map((s) => s.trim())
            .filter(Boolean)
        }
      />
      <NumberField path="goodput.ttft" label="Goodput SLO: TTFT (ms)" hint="optional" />
      <NumberField path="goodput.tpot" label="Goodput SLO: TPOT (ms)" hint="optional" />
      <NumberField path="goodput.e2el" label="Goodput SLO: E2EL (ms)" hint="optional; any SLO → request_goodput" />
      <ParsedArea path="percentileMetrics" label="Percentile metrics" format={list} parse={splitList} rows={1} />
      <ParsedArea path="metricPercentiles" label="Percentiles" format={list} parse={numList} rows={1} />
    </fieldset>
  );
}
