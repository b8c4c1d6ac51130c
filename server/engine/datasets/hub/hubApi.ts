/**
 * The two Hub API calls a locale's download needs, as huggingface_hub
 * makes them: the commit `main` points at (`/api/datasets/ID/revision/main`)
 * and the locale folder's files with their sizes and content ids
 * (`/api/datasets/ID/tree/COMMIT/LOCALE?recursive=true`, paged by a
 * `Link: <…>; rel="next"` header). Every answer is read up to a cap, every
 * listed path checked before it is joined onto the cache.
 */
import type { Dispatcher, UndiciRequest } from '../../transport/simpleClient.ts';
import { COMMIT_HASH } from './hubCache.ts';

export class HubError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the Hub answered with one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

/** One file of the locale folder, as the tree listing gives it. */
export interface HubFile {
  /** Path inside the repository, e.g. `en/prompt-wavs/x.wav`. */
  path: string;
  size: number;
  /** The blob's name in the cache: the LFS sha256 when the file is in LFS, else the git blob id. */
  etag: string;
  /** How `etag` is checked: sha256 of the content (LFS), or git's sha1 of `blob SIZE\0` + content. */
  hash: 'sha256' | 'git-sha1';
}

export interface HubContext {
  endpoint: string;
  repoId: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  /** undici's request, loaded with the dispatcher (hubDownload.ts): only a run that downloads loads undici. */
  request: UndiciRequest;
  signal?: AbortSignal;
  /** Bytes of one JSON answer read at most. */
  jsonCap: number;
  /** Pages of the tree listing followed at most. */
  maxPages: number;
}

/**
 * The headers for `url`: the token (Authorization) only on the Hub's own
 * origin, the one HF_ENDPOINT names. A listing's `Link` may name any origin;
 * the token is not the listing's to send elsewhere (a redirect drops it too).
 */
function headersFor(ctx: HubContext, url: string): Record<string, string> {
  if (new URL(url).origin === new URL(ctx.endpoint).origin) return ctx.headers;
  return Object.fromEntries(Object.entries(ctx.headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
}

/** GET a JSON document; a non-200 answer throws HubError with its status. */
async function getJson(ctx: HubContext, url: string): Promise<{ body: unknown; next: string | null }> {
  const headers = headersFor(ctx, url);
  const res = await ctx.request(url, { dispatcher: ctx.dispatcher, headers, signal: ctx.signal });
  if (res.statusCode !== 200) {
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    throw new HubError(`${url} answered HTTP ${res.statusCode}`, res.statusCode);
  }
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ctx.jsonCap) {
      res.body.destroy();
      throw new HubError(`${url}: the answer is larger than ${ctx.jsonCap} bytes; not read further`);
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HubError(`${url}: the answer is not JSON`);
  }
  const link = res.headers.link;
  const next = nextLink(Array.isArray(link) ? link.join(',') : (link ?? ''));
  return { body, next: next === null ? null : new URL(next, url).href };
}

/**
 * The `rel="next"` target of a `Link` header, or null. `[^<>]`: from each `<` the search stops at the next one, so
 * a run of `<` costs linear time (with `[^>]` it was quadratic: 16 KB of `<` held the loop 0.25 s).
 */
export function nextLink(header: string): string | null {
  return /<([^<>]+)>\s*;\s*rel="?next"?/.exec(header)?.[1] ?? null;
}

/** The commit `main` points at now. */
export async function mainCommit(ctx: HubContext): Promise<string> {
  const { body } = await getJson(ctx, `${ctx.endpoint}/api/datasets/${ctx.repoId}/revision/main`);
  const sha = (body as { sha?: unknown } | null)?.sha;
  if (typeof sha !== 'string' || !COMMIT_HASH.test(sha))
    throw new HubError(`the Hub's answer for ${ctx.repoId} names no commit ("sha")`);
  return sha;
}

/** Every file under `LOCALE/` at `commit`, each path checked to stay inside the folder. */
export async function listLocale(ctx: HubContext, commit: string, locale: string): Promise<HubFile[]> {
  const files: HubFile[] = [];
  let url: string | null =
    `${ctx.endpoint}/api/datasets/${ctx.repoId}/tree/${commit}/${encodeURIComponent(locale)}?recursive=true`;
  for (let page = 0; url; page++) {
    if (page >= ctx.maxPages) throw new HubError(`the listing of ${locale}/ has more than ${ctx.maxPages} pages`);
    const { body, next }: { body: unknown; next: string | null } = await getJson(ctx, url);
    if (!Array.isArray(body)) throw new HubError(`the listing of ${locale}/ is not a list`);
    for (const entry of body) {
      const file = fileOf(entry, locale);
      if (file) files.push(file);
    }
    url = next;
  }
  return files;
}

/** A listed file, or null for a folder; throws on an entry that cannot be trusted. */
function fileOf(entry: unknown, locale: string): HubFile | null {
  const e = entry as { type?: unknown; path?: unknown; size?: unknown; oid?: unknown; lfs?: { oid?: unknown } };
  if (e?.type === 'directory') return null;
  const path = typeof e?.path === 'string' ? e.path : '';
  const segments = path.split('/');
  if (
    e?.type !== 'file' ||
    segments[0] !== locale ||
    segments.length < 2 ||
    segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))
  )
    throw new HubError(`the listing has an entry outside ${locale}/ or with an unsafe path: ${JSON.stringify(path)}`);
  if (typeof e.size !== 'number' || !Number.isSafeInteger(e.size) || e.size < 0)
    throw new HubError(`${path}: the listing gives no size`);
  const lfsOid = e.lfs?.oid;
  if (typeof lfsOid === 'string' && /^[0-9a-f]{64}$/.test(lfsOid))
    return { path, size: e.size, etag: lfsOid, hash: 'sha256' };
  if (typeof e.oid === 'string' && COMMIT_HASH.test(e.oid))
    return { path, size: e.size, etag: e.oid, hash: 'git-sha1' };
  throw new HubError(`${path}: the listing gives no content id`);
}

/** Where a file's bytes are served (the Hub redirects LFS files to its storage). */
export function resolveUrl(ctx: Pick<HubContext, 'endpoint' | 'repoId'>, commit: string, path: string): string {
  return `${ctx.endpoint}/datasets/${ctx.repoId}/resolve/${commit}/${path.split('/').map(encodeURIComponent).join('/')}`;
}
