/**
 * Secrets inside text, masked wherever a run's configuration, events, logs or
 * errors are shown or sent on (docs/design.md#secrets): the userinfo of a URL
 * (`https://user:pass@host/…`) and the value of a credential-named parameter
 * (`?password=…`, `&token=…`, `api_key=…` — see `isSecretParam`), wherever in
 * the string they stand, so a URL inside an error message is masked too. Pure,
 * so the CLI, the reporter, the dashboard and the web UI apply one rule.
 */
export const MASK = '***';

/**
 * `scheme://userinfo@`: the userinfo runs to the last `@` before the host's end (`/ ? #`), as a URL parser reads it,
 * so an unencoded `@` inside a password does not leave its tail behind. Quotes end it too: the same rule runs over
 * JSON text, where a match must not reach into the next string. A match starts at `://` (after a scheme's last
 * character), not at the scheme: `[a-z][a-z0-9+.-]*://` was tried from each letter of a long word and scanned it
 * to its end every time, quadratic in the text (a 20 KB word took 0.35 s); from `://` each scan stops at the
 * next `/`, so the whole text is read a bounded number of times.
 */
const USERINFO = /(?<=[a-z0-9+.-])(:\/\/)[^/?#\s"'<>\\]*@/gi;

/**
 * `name=value` after the start, a space, a quote or a URL's `? & ;`: a query parameter, a libpq conninfo pair, a
 * `--flag=value`. The value runs to the next separator, quote or backslash (an escape in JSON text).
 */
const PARAM = /(^|[?&;\s"'])([A-Za-z0-9_.-]+)=([^&#\s;"'<>\\]+)/g;

/** A parameter's last word (split on `_ - .`) that names a credential. */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'secret',
  'token',
  'key',
  'apikey',
  'sig',
  'signature',
  'credential',
  'credentials',
  'auth',
  'authorization',
]);

/**
 * Whether a parameter holds a credential: its last word is one of SECRET_WORDS (`api_key`, `access_token`,
 * `X-Amz-Signature`, `client_secret`), or it ends in `password`, `secret` or `token` (`sslpassword`, `accesstoken`).
 */
export function isSecretParam(name: string): boolean {
  const n = name.toLowerCase();
  const words = n.split(/[_.-]+/);
  return SECRET_WORDS.has(words[words.length - 1]) || /(password|secret|token)$/.test(n);
}

/** The text with every URL's userinfo and every credential parameter's value replaced by MASK. */
export function redactSecrets(text: string): string {
  // Most strings (ids, phases, numbers as text) hold neither: no regex, no copy.
  if (!text.includes('@') && !text.includes('=')) return text;
  return text
    .replace(USERINFO, `$1${MASK}@`)
    .replace(PARAM, (whole, lead: string, name: string) => (isSecretParam(name) ? `${lead}${name}=${MASK}` : whole));
}

/** `redactSecrets` for a value that may not be a string (any other value is returned unchanged). */
export function redactUrl<T>(value: T): T {
  return (typeof value === 'string' ? redactSecrets(value) : value) as T;
}

/** A copy of a JSON value with every string's secrets masked; the same object when there were none. */
export function redactSecretsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = redactSecretsDeep(value[i] as unknown);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return (out ?? value) as T;
  }
  if (typeof value !== 'object' || value === null) return value;
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    const r = redactSecretsDeep(v);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
}

/**
 * A copy of a request body's parameters (`--extra-body`) with the value of every credential-named key masked
 * (`api_key`, `password`, `client_secret`…), at any depth. Only for a body a user wrote: elsewhere a key named
 * `key` or `token` is data (a stop rule's metric key).
 */
export function redactSecretKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => redactSecretKeys(v)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = v !== null && typeof v !== 'object' && isSecretParam(k) ? MASK : redactSecretKeys(v);
  return out as T;
}
