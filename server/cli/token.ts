/**
 * `stallscope token`: manage the dashboard's scoped tokens through its REST
 * API with an admin token (docs/design.md#tokens). Through the API, not the
 * database: it works the same against a remote dashboard and on either store,
 * and a revocation reaches the running dashboard at once (it closes the
 * token's live streams).
 */
import { parseArgs } from 'node:util';
import { DEFAULT_DASHBOARD_PORT } from '../../shared/protocol/dashboardPort.ts';
import { redactSecrets } from '../../shared/redact.ts';
import type { CreateTokenReply, TokenInfo, TokenListReply } from '../../shared/protocol/tokens.ts';
import { trimTrailingSlashes } from '../../shared/text.ts';

const USAGE = `usage: stallscope token <command> [options]

commands:
  create --scope report|view|admin --name NAME
                       create a token and print it (shown this once; the
                       dashboard keeps only its SHA-256)
  list                 list the tokens (never the tokens themselves)
  revoke ID|NAME       revoke a token: refused from its next request on

options:
  --dashboard URL      the dashboard (default $STALLSCOPE_DASHBOARD, else
                       http://127.0.0.1:${DEFAULT_DASHBOARD_PORT}); a ?token= in it is used
  --token T            an admin token (default: $STALLSCOPE_TOKEN)
  --json               print JSON instead of text`;

class Refusal extends Error {}

interface Target {
  base: string;
  token: string | null;
}

function target(dashboard: string | undefined, token: string | undefined): Target {
  let u: URL;
  const raw = dashboard ?? process.env.STALLSCOPE_DASHBOARD ?? `http://127.0.0.1:${DEFAULT_DASHBOARD_PORT}`;
  try {
    u = new URL(raw);
  } catch {
    // Its ?token= would be an admin token: never printed (docs/design.md#secrets).
    throw new Refusal(`--dashboard is not a URL: '${redactSecrets(raw)}'`);
  }
  const t = token ?? u.searchParams.get('token') ?? process.env.STALLSCOPE_TOKEN ?? null;
  return { base: `${u.origin}${trimTrailingSlashes(u.pathname)}`, token: t };
}

async function call<T>(t: Target, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${t.base}${path}`, {
      method,
      headers: {
        ...(t.token ? { authorization: `Bearer ${t.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a DNS failure) is its cause.
    const cause = (e as Error).cause;
    throw new Refusal(
      `cannot reach the dashboard at ${t.base}: ${cause instanceof Error ? cause.message : (e as Error).message}`,
    );
  }
  const text = await res.text();
  if (res.ok) return JSON.parse(text) as T;
  let said = text.slice(0, 300);
  try {
    const err = JSON.parse(text) as { code?: string; message?: string };
    if (err.code) said = `${err.code}: ${err.message ?? ''}`;
  } catch {
    // not the dashboard's JSON error: shown as it came
  }
  throw new Refusal(`the dashboard answered ${res.status} (${said})`);
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

function table(tokens: TokenInfo[]): string {
  if (tokens.length === 0) return 'no tokens';
  const rows = [['ID', 'NAME', 'SCOPE', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED']];
  for (const k of tokens)
    rows.push([k.id, k.name, k.scope, `${k.prefix}…`, when(k.createdAtMs), when(k.lastUsedAtMs), when(k.revokedAtMs)]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function create(t: Target, scope: string | undefined, name: string | undefined, json: boolean): Promise<void> {
  if (!scope || !name) throw new Refusal('create needs --scope report|view|admin and --name NAME');
  const r = await call<CreateTokenReply>(t, 'POST', '/api/tokens', { scope, name });
  if (json) console.log(JSON.stringify(r));
  else {
    console.error(`created ${r.info.scope} token '${r.info.name}' (${r.info.id}); it is shown this once:`);
    console.log(r.token);
  }
}

async function revoke(t: Target, which: string | undefined, json: boolean): Promise<void> {
  if (!which) throw new Refusal('revoke needs a token id or name');
  const { tokens } = await call<TokenListReply>(t, 'GET', '/api/tokens');
  const found = tokens.find((k) => k.id === which) ?? tokens.find((k) => k.name === which && k.revokedAtMs === null);
  if (!found) throw new Refusal(`no token with id or (unrevoked) name '${which}'`);
  const r = await call<TokenInfo>(t, 'DELETE', `/api/tokens/${encodeURIComponent(found.id)}`);
  console.log(json ? JSON.stringify(r) : `revoked ${r.scope} token '${r.name}' (${r.id})`);
}

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        scope: { type: 'string' },
        name: { type: 'string' },
        dashboard: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    console.error(`stallscope token: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const {
    values: v,
    positionals: [cmd, arg],
  } = parsed;
  if (v.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const t = target(v.dashboard, v.token);
    if (cmd === 'create') await create(t, v.scope, v.name, v.json);
    else if (cmd === 'list') {
      const { tokens } = await call<TokenListReply>(t, 'GET', '/api/tokens');
      console.log(v.json ? JSON.stringify(tokens) : table(tokens));
    } else if (cmd === 'revoke') await revoke(t, arg, v.json);
    else {
      console.error(`stallscope token: ${cmd ? `unknown command '${cmd}'` : 'a command is needed'}\n\n${USAGE}`);
      return 2;
    }
    return 0;
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    console.error(`stallscope token: ${e.message}`);
    return 1;
  }
}
