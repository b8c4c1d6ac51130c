/** The form's Target group: the embedded reproduction server or a URL (with its server-stacks capture), model, backend, endpoint, label, metadata. */
import { useContext } from 'react';
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import {
  CheckField,
  FormContext,
  NumberField,
  ParsedArea,
  SelectField,
  TextField,
} from '../../components/form/Fields.tsx';
import { formatKeyValues, parseKeyValues } from '../../components/form/paths.ts';
import type { TargetKind } from '../../state/targetSwitch.ts';
import { BACKEND_INFO, BACKENDS, isBackendName, isRealtimeBackend } from '../../../shared/config/backends.ts';

export function TargetGroup({ spec, pickTarget }: { spec: RunSpec; pickTarget: (kind: TargetKind) => void }) {
  const embedded = spec.target?.kind === 'embedded';
  return (
    <fieldset className="group">
      <legend>Target</legend>
      <SelectField
        path="target.kind"
        label="Target"
        options={['embedded', 'url']}
        onPick={(k) => pickTarget(k as TargetKind)}
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
      <BackendFields spec={spec} />
      <TextField path="endpoint" label="Endpoint" hint={BACKEND_HINT} />
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
  );
}

/**
 * The backend and its endpoint: picking a backend moves an endpoint that was the previous backend's default
 * to the new one's (an endpoint typed by hand stays); realtime backends add their turns per session.
 */
function BackendFields({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  const pick = (b: string) => {
    const was = isBackendName(spec.backend) ? BACKEND_INFO[spec.backend].defaultEndpoint : null;
    f.set('backend', b);
    if (isBackendName(b) && (spec.endpoint === was || spec.endpoint === undefined))
      f.set('endpoint', BACKEND_INFO[b].defaultEndpoint);
    if (!isRealtimeBackend(b)) f.set('turnsPerSession', undefined);
  };
  return (
    <>
      <SelectField
        path="backend"
        label="Backend"
        options={BACKENDS}
        onPick={pick}
        hint={isBackendName(spec.backend) ? BACKEND_INFO[spec.backend].summary : undefined}
      />
      {isRealtimeBackend(spec.backend) && (
        <NumberField
          path="turnsPerSession"
          label="Turns per session"
          hint="prompts per WebSocket session; max concurrency counts sessions"
        />
      )}
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

/** Which endpoint each backend speaks to (the engine refuses another). */
const BACKEND_HINT = BACKENDS.map((b) => `${b}: ${BACKEND_INFO[b].defaultEndpoint}`).join('; ');
