/**
 * A loopback stand-in for the Hugging Face Hub (`HF_ENDPOINT`), answering
 * the calls huggingface_hub makes for a dataset as the Hub answers them:
 * `GET /api/datasets/ORG/NAME/revision/main` → `{ sha, siblings }`,
 * `GET /api/datasets/ORG/NAME/tree/SHA/PATH?recursive=true` → the entries
 * under PATH (`oid`, `size`, `lfs: { oid, size }` for LFS files), paged
 * with a `Link: <…>; rel="next"` header, and
 * `GET /datasets/ORG/NAME/resolve/SHA/PATH` → the bytes; an LFS file is a
 * 302 to a second server on another port (the Hub's storage, another
 * origin). Every request is recorded with its Authorization header.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HubFileSpec {
  content: Buffer;
  /** Stored in LFS: listed with `lfs.oid` (sha256) and served from the storage server. */
  lfs?: boolean;
}

export interface FakeHubOptions {
  repoId: string;
  commit: string;
  files: Record<string, HubFileSpec>;
  /** Answer 401 to every API call without `Authorization: Bearer TOKEN`. */
  token?: string;
  /** Entries per page of the tree listing. */
  pageSize?: number;
  /** Paths whose download sends the headers and half the bytes, then drops the connection. */
  dropMidFile?: Set<string>;
  /** Paths served with their last byte changed (the right length, the wrong content). */
  corrupt?: Set<string>;
  /** Extra tree entries (e.g. an unsafe path), appended to the listing. */
  extraEntries?: unknown[];
  /**
   * The listing's `Link: <…>; rel="next"` names the storage server's origin
   * (another port), which serves the next pages too, without asking for a token.
   */
  nextElsewhere?: boolean;
}

export interface Recorded {
  server: 'hub' | 'storage';
  path: string;
  authorization: string | undefined;
}

export interface FakeHub {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

export function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, close };
}

function entryOf(path: string, f: HubFileSpec): Record<string, unknown> {
  const base = { type: 'file', path, size: f.content.length };
  if (!f.lfs) return { ...base, oid: gitBlobId(f.content) };
  const pointer = Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(f.content)}\n`);
  return {
    ...base,
    oid: gitBlobId(pointer),
    lfs: { oid: sha256(f.content), size: f.content.length, pointerSize: 120 },
  };
}

function send(res: ServerResponse, path: string, content: Buffer, o: FakeHubOptions): void {
  if (o.dropMidFile?.has(path)) {
    res.writeHead(200, { 'content-length': content.length, 'content-type': 'application/octet-stream' });
    res.write(content.subarray(0, content.length >> 1), () => res.socket?.destroy());
    return;
  }
  let body = content;
  if (o.corrupt?.has(path)) {
    body = Buffer.from(content);
    body[body.length - 1] ^= 0xff;
  }
  res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
  res.end(body);
}

export async function startFakeHub(o: FakeHubOptions): Promise<FakeHub> {
  const requests: Recorded[] = [];
  const storage = await listen((req, res) => {
    requests.push({ server: 'storage', path: req.url ?? '', authorization: req.headers.authorization });
    if (o.nextElsewhere && (req.url ?? '').startsWith('/api/')) return tree(new URL(req.url!, 'http://x'), res);
    const path = decodeURIComponent((req.url ?? '').replace(/^\/lfs\//, ''));
    const f = o.files[path];
    if (!f) return void res.writeHead(404).end();
    send(res, path, f.content, o);
  });
  /** A page of the tree listing (on the Hub, or on the storage server with `nextElsewhere`). */
  const tree = (url: URL, res: ServerResponse): void => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const prefix = `/api/datasets/${o.repoId}/tree/${o.commit}/`;
    const folder = decodeURIComponent(url.pathname.slice(prefix.length));
    if (!dirs.has(folder)) return json(404, { error: `${folder} does not exist` });
    const entries: unknown[] = [
      ...[...dirs]
        .filter((d) => d.startsWith(`${folder}/`))
        .map((path) => ({ type: 'directory', path, oid: 'x', size: 0 })),
      ...Object.entries(o.files)
        .filter(([p]) => p.startsWith(`${folder}/`))
        .map(([p, f]) => entryOf(p, f)),
      ...(o.extraEntries ?? []),
    ];
    const size = o.pageSize ?? 1000;
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const next =
      start + size < entries.length
        ? `<${o.nextElsewhere ? storage.url : hubUrl}${url.pathname}?recursive=true&cursor=${start + size}>; rel="next"`
        : '';
    return json(200, entries.slice(start, start + size), next ? { link: next } : {});
  };
  const dirs = new Set(
    Object.keys(o.files).flatMap((p) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, a) => a.slice(0, i + 1).join('/')),
    ),
  );
  const hub = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    requests.push({ server: 'hub', path: url.pathname + url.search, authorization: req.headers.authorization });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (o.token && req.headers.authorization !== `Bearer ${o.token}`)
      return json(401, { error: 'Invalid credentials in Authorization header' });
    const api = `/api/datasets/${o.repoId}`;
    if (url.pathname === `${api}/revision/main`)
      return json(200, {
        id: o.repoId,
        sha: o.commit,
        siblings: Object.keys(o.files).map((rfilename) => ({ rfilename })),
      });
    if (url.pathname.startsWith(`${api}/tree/${o.commit}/`)) return tree(url, res);
    const resolve = `/datasets/${o.repoId}/resolve/${o.commit}/`;
    if (url.pathname.startsWith(resolve)) {
      const path = decodeURIComponent(url.pathname.slice(resolve.length));
      const f = o.files[path];
      if (!f) return json(404, { error: 'Entry not found' });
      if (f.lfs) {
        res.writeHead(302, { location: `${storage.url}/lfs/${encodeURIComponent(path)}` });
        return void res.end();
      }
      return send(res, path, f.content, o);
    }
    json(404, { error: 'Repository not found' });
  });
  const hubUrl = hub.url;
  return {
    url: hub.url,
    requests,
    close: async () => {
      await hub.close();
      await storage.close();
    },
  };
}
