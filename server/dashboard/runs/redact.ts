/**
 * Secrets a run was started with (API key, custom headers, the recogniser's
 * headers, a user:password in any URL) never leave the server in replies, and
 * are masked before a spec or config is stored for display.
 */
import { MASK, redactUrl, redactUrlsDeep } from '../../../shared/redact.ts';

export { redactUrl };

const maskValues = (h: Record<string, string>) => Object.fromEntries(Object.keys(h).map((k) => [k, MASK]));

export function redactSpec(spec: unknown): unknown {
  const s = redactUrlsDeep(spec) as { target?: { apiKey?: string } } | null;
  if (!s?.target?.apiKey) return s;
  return { ...s, target: { ...s.target, apiKey: MASK } };
}

export function redactConfig(config: unknown): unknown {
  type Config = {
    apiKey?: string | null;
    headers?: Record<string, string>;
    seedTtsEval?: { asrHeaders?: Record<string, string> } | null;
  };
  const c = redactUrlsDeep(config) as Config | null;
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
