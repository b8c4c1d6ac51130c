/** Every RunSpec field, grouped: target, dataset, dispatch, timeouts and breaker, watchdog and faults, thresholds. */
import { useContext } from 'react';
import { C2W_PHASES } from '../../shared/types.ts';
import type { RunSpec } from '../../shared/schemas.ts';
import {
  CheckField,
  FormContext,
  NumberField,
  ParsedArea,
  SelectField,
  TextField,
} from '../components/form/Fields.tsx';
import { formatKeyValues, parseKeyValues } from '../components/form/paths.ts';

const TARGETS = {
  embedded: { kind: 'embedded', faults: [], watchdogTimeoutS: 0, workers: 1, maxBatch: 4 },
  url: { kind: 'url', baseUrl: 'http://127.0.0.1:8000' },
};
const DATASETS = {
  random: { name: 'random', inputLen: 64, outputLen: 32 },
  'seed-tts': { name: 'seed-tts', path: '', locale: 'en', noOversample: true },
  trace: { name: 'trace', path: '' },
};

const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');
const splitList = (t: string) =>
  t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const numList = (t: string) => splitList(t).map((s) => (Number.isFinite(Number(s)) ? Number(s) : s));
const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
const parseJson = (t: string): unknown => {
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t; // the schema then says "must be a JSON object" beside the field
  }
};

export function RunFormGroups({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  const embedded = spec.target?.kind === 'embedded';
  const faults = embedded ? ((spec.target as Extract<RunSpec['target'], { kind: 'embedded' }>).faults ?? []) : [];
  return (
    <>
      <fieldset className="group">
        <legend>Target</legend>
        <SelectField
          path="target.kind"
          label="Target"
          options={['embedded', 'url']}
          onPick={(k) => f.set('target', structuredClone(TARGETS[k as keyof typeof TARGETS]))}
        />
        {embedded ? (
          <>
            <NumberField path="target.workers" label="Code2Wav workers" hint="1 = the stage's single owner thread" />
            <NumberField path="target.maxBatch" label="Max batch" />
            <NumberField path="target.tokenRate" label="Thinker tokens/s" hint="optional" />
            <NumberField path="target.seed" label="Target seed" hint="optional" />
          </>
        ) : (
          <>
            <TextField path="target.baseUrl" label="Base URL" placeholder="http://127.0.0.1:8000" />
            <TextField path="target.apiKey" label="API key" optional hint="optional" />
            <CheckField
              path="target.insecure"
              label="Skip TLS certificate checks"
              hint="https with a self-signed certificate (--insecure)"
            />
            <ServerStacksFields spec={spec} />
          </>
        )}
        <TextField path="model" label="Model" />
        <SelectField path="backend" label="Backend" options={['openai-chat-omni', 'openai-chat']} />
        <TextField path="endpoint" label="Endpoint" />
        <TextField path="label" label="Label" optional />
        <ParsedArea
          path="metadata"
          label="Metadata (key=value per line)"
          hint="CI build, node, GPU/ROCm version, server commit"
          format={(v) => (typeof v === 'string' ? v : formatKeyValues(v as Record<string, string>))}
          parse={(t) => {
            const { record, bad } = parseKeyValues(t);
            return bad.length ? t : record;
          }}
        />
      </fieldset>

      <fieldset className="group">
        <legend>Dataset</legend>
        <SelectField
          path="dataset.name"
          label="Dataset"
          options={['random', 'seed-tts', 'trace']}
          onPick={(k) => f.set('dataset', structuredClone(DATASETS[k as keyof typeof DATASETS]))}
        />
        {spec.dataset?.name === 'random' && (
          <>
            <NumberField path="dataset.inputLen" label="Input length (tokens)" />
            <NumberField path="dataset.outputLen" label="Output length (tokens)" />
          </>
        )}
        {spec.dataset?.name === 'seed-tts' && (
          <>
            <TextField path="dataset.path" label="Seed-TTS directory" hint="holds {locale}/meta.lst" />
            <TextField path="dataset.locale" label="Locale" />
            <CheckField path="dataset.noOversample" label="No oversample" />
            <NumberField path="dataset.outputLen" label="Output length" hint="optional" />
            <CheckField
              path="dataset.werEval.enabled"
              label="WER gate (--seed-tts-wer-eval)"
              hint="transcribe every answer after the run; gate with a threshold on seed_tts_content_error_mean"
            />
            {spec.dataset.werEval?.enabled && (
              <>
                <TextField
                  path="dataset.werEval.asrUrl"
                  label="ASR server URL"
                  hint="OpenAI-compatible; /v1/audio/transcriptions is appended"
                />
                <TextField path="dataset.werEval.asrModel" label="ASR model" hint="default openai/whisper-large-v3" />
                <NumberField path="dataset.werEval.asrConcurrency" label="ASR concurrency" hint="default 4" />
                <CheckField path="dataset.werEval.saveItems" label="Save per-utterance items" />
              </>
            )}
          </>
        )}
        {spec.dataset?.name === 'trace' && <TextField path="dataset.path" label="Trace file (JSONL)" />}
      </fieldset>

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
        <ParsedArea
          path="extraBody"
          label="Extra body (JSON, merged at the top level)"
          format={json}
          parse={parseJson}
        />
      </fieldset>

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

      {embedded && (
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
      )}

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
    </>
  );
}

/** "Capture server stacks" of a URL target: py-spy dumps of the server's process tree (docs/design.md#server-stacks). */
function ServerStacksFields({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  const on = spec.target?.kind === 'url' && spec.target.serverStacks !== undefined;
  return (
    <>
      <div className="field">
        <label>
          <input
            type="checkbox"
            data-testid="capture-server-stacks"
            checked={on}
            onChange={(e) => f.set('target.serverStacks', e.target.checked ? { pid: 'auto' } : undefined)}
          />{' '}
          Capture server stacks
        </label>
        <span className="hint">py-spy dump of the server and its child processes at the first timeout</span>
      </div>
      {on && (
        <>
          <NumberField
            path="target.serverStacks.pid"
            label="Server pid"
            allowText="auto"
            hint="a process id, or auto (the owner of the port; loopback only)"
          />
          <NumberField
            path="target.serverStacks.stallAfterS"
            label="Stall threshold (s)"
            hint="optional: also capture after this long without an SSE event"
          />
          <CheckField path="target.serverStacks.native" label="Native frames" hint="py-spy --native" />
        </>
      )}
    </>
  );
}
