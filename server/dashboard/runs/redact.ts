/** Secrets a run was started with (API key, custom headers) never leave the server in replies. */
const MASK = '***';

export function redactSpec(spec: unknown): unknown {
  const s = spec as { target?: { apiKey?: string } } | null;
  if (!s?.target?.apiKey) return spec;
  return { ...s, target: { ...s.target, apiKey: MASK } };
}

export function redactConfig(config: unknown): unknown {
  const c = config as { apiKey?: string | null; headers?: Record<string, string> } | null;
  if (!c || (!c.apiKey && !c.headers)) return config;
  return {
    ...c,
    ...(c.apiKey ? { apiKey: MASK } : {}),
    ...(c.headers ? { headers: Object.fromEntries(Object.keys(c.headers).map((k) => [k, MASK])) } : {}),
  };
}
