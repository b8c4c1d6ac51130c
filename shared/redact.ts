/**
 * Credentials inside URLs (`https://user:pass@host/…`), masked wherever a
 * run's configuration is shown or sent on: a reporter's config posted to a
 * dashboard, and the dashboard's replies. Pure, so the CLI and the dashboard
 * apply the same rule.
 */
export const MASK = '***';

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i;

/** `scheme://user:pass@host…` → `scheme://***@host…`; any other value unchanged. */
export function redactUrl<T>(value: T): T {
  if (typeof value !== 'string' || !USERINFO.test(value)) return value;
  return value.replace(USERINFO, `$1${MASK}@`) as T;
}

/** A copy of a JSON value with every URL's credentials masked; the same object when there were none. */
export function redactUrlsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactUrl(value);
  if (Array.isArray(value)) {
    const out = value.map((v: unknown) => redactUrlsDeep(v));
    return (out.some((v, i) => v !== value[i]) ? out : value) as T;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = redactUrlsDeep(v);
    if (out[k] !== v) changed = true;
  }
  return (changed ? out : value) as T;
}
