/**
 * Secrets a run was started with (API key, custom headers, the recogniser's
 * headers, a user:password in any URL, a `?token=`-style parameter) never
 * leave the server in replies, and are masked before a spec, a config or a
 * reported event is stored or shown (docs/design.md#secrets).
 */
import { MASK, redactSecretKeys, redactUrl, redactSecretsDeep } from '../../../shared/redact.ts';

export { redactUrl };

/**
 * A reported event with its secrets masked (a `run.started.baseUrl` with `user:pass@`, a URL in an error message),
 * applied to each event of a checked batch before it reaches the hub: what is stored, streamed over /ws and read back
 * from /api/runs/:id/events is the masked event. The same object when it holds none.
 */
export function redactEvent<T>(event: T): T {
  return redactSecretsDeep(event);
}

const maskValues = (h: Record<string, string>) => Object.fromEntries(Object.keys(h).map((k) => [k, MASK]));

/** `extraBody`'s credential-named parameters (`--extra-body '{"api_key": …}'`) masked. */
function withBodyMasked<T extends { extraBody?: unknown } | null>(c: T): T {
  return c?.extraBody ? { ...c, extraBody: redactSecretKeys(c.extraBody) } : c;
}

export function redactSpec(spec: unknown): unknown {
  const s = withBodyMasked(redactSecretsDeep(spec) as { target?: { apiKey?: string }; extraBody?: unknown } | null);
  if (!s?.target?.apiKey) return s;
  return { ...s, target: { ...s.target, apiKey: MASK } };
}

export function redactConfig(config: unknown): unknown {
  type Config = {
    apiKey?: string | null;
    headers?: Record<string, string>;
    seedTtsEval?: { asrHeaders?: Record<string, string> } | null;
    extraBody?: unknown;
  };
  const c = withBodyMasked(redactSecretsDeep(config) as Config | null);
  if (!c || (!c.apiKey && !c.headers && !c.seedTtsEval?.asrHeaders)) return c;
  return {
    ...c,
    ...(c.apiKey ? { apiKey: MASK } : {}),
    ...(c.headers ? { headers: maskValues(c.headers) } : {}),
    ...(c.seedTtsEval?.asrHeaders
      ? { seedTtsEval: { ...c.seedTtsEval, asrHeaders: maskValues(c.seedTtsEval.asrHeaders) } }
      : {}),
  };
}
