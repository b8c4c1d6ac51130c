/**
 * The liveness probe a run asks for (`--probe-liveness-at-stall`, on by
 * default in dashboard runs; docs/design.md#liveness-at-stall), built by
 * whoever starts the run (the CLI, the run manager) and handed to the engine
 * in EngineOptions.probes. It asks the run's own target, with the run's
 * headers (authorization, --header) and TLS setting.
 */
import type { RunConfig } from '../../../../shared/config/runConfig.ts';
import type { RunProbe } from '../../run/probe.ts';
import { buildHeaders } from '../../backends/requestBody.ts';
import { LivenessProbe } from './probe.ts';
import { BACKEND_INFO } from '../../../../shared/config/backends.ts';

export interface LivenessSettings {
  enabled: boolean;
  /** `--server-stall-after-s`: a request this long without an SSE event also starts the check. */
  stallAfterS?: number;
}

export function livenessProbes(s: LivenessSettings, config: RunConfig): RunProbe[] {
  if (!s.enabled) return [];
  const { 'x-request-id': _id, 'content-type': _type, ...headers } = buildHeaders(config, '');
  return [
    new LivenessProbe({
      target: {
        baseUrl: config.target.baseUrl,
        // The text-only request goes to the chat endpoint: a speech or realtime run's own is not one.
        endpoint: config.target.backend.startsWith('openai-chat')
          ? config.target.endpoint
          : BACKEND_INFO['openai-chat-omni'].defaultEndpoint,
        model: config.target.servedModelName || config.target.model,
        headers,
        insecure: config.target.insecure === true,
      },
      runId: config.runId,
      stallAfterS: s.stallAfterS,
    }),
  ];
}
