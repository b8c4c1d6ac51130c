/**
 * The built web UI over a real socket, read by node:http (which, unlike fetch, hands over the bytes as sent):
 * compressed copies chosen by Accept-Encoding and decompressing to the built file, `Vary: Accept-Encoding`, hashed
 * assets cached for a year and immutable, index.html (also as the SPA fallback) and any unhashed file revalidated.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#server/dashboard/app.ts';
import { WEB_OUT } from '#server/cli/webBuild.ts';
import { ensureWebBuild } from '#test/helpers/browser.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let app: FastifyInstance;
let port = 0;
let root = '';
let entry = '';

function get(path: string, acceptEncoding?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  ensureWebBuild();
  // A copy of the build, so an unhashed file can sit beside the hashed ones without touching dist/.
  root = mkdtempSync(join(tmpdir(), 'stallscope-web-static-'));
  cpSync(WEB_OUT, root, { recursive: true });
  writeFileSync(join(root, 'assets', 'plain.js'), `// not hashed\n${'x'.repeat(4000)}\n`);
  entry = /<script type="module"[^>]* src="\/?([^"]+)"/.exec(readFileSync(join(root, 'index.html'), 'utf8'))![1];
  app = await buildApp({ dataDir: null, logger: false, webRoot: root });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address();
  port = typeof a === 'object' && a ? a.port : 0;
});

afterAll(async () => {
  await app?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the built web UI', () => {
  it('sends the entry script as brotli, gzip or plain by Accept-Encoding, each the built file once decoded', async () => {
    const file = readFileSync(join(root, entry));
    expect(entry).toMatch(/^assets\/index-[A-Za-z0-9_-]{8}\.js$/);

    const br = await get(`/${entry}`, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.body.length).toBeLessThan(file.length / 2);
    expect(brotliDecompressSync(br.body).equals(file)).toBe(true);

    const gz = await get(`/${entry}`, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(file.length / 2);
    expect(gunzipSync(gz.body).equals(file)).toBe(true);

    const plain = await get(`/${entry}`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(file)).toBe(true);

    // Every variant says that it is one: a shared cache must not hand brotli to a client that did not ask for it.
    for (const r of [br, gz, plain]) expect(r.headers.vary).toMatch(/accept-encoding/i);
  });

  it('caches hashed assets for a year, immutable, compressed or not', async () => {
    for (const enc of ['br', 'gzip', undefined]) {
      const r = await get(`/${entry}`, enc);
      expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const css = /href="\/?(assets\/index-[^"]+\.css)"/.exec(readFileSync(join(root, 'index.html'), 'utf8'))![1];
    const r = await get(`/${css}`, 'br');
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('has index.html revalidated on every load, as the root, by name and as the fallback of a deep link', async () => {
    const index = readFileSync(join(root, 'index.html'));
    for (const path of ['/', '/index.html', '/runs/abc']) {
      const r = await get(path, 'br, gzip');
      expect(r.status).toBe(200);
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers['cache-control']).not.toMatch(/immutable|max-age=[1-9]/);
      const body = r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.body) : r.body;
      expect(body.equals(index)).toBe(true);
    }
  });

  it('does not call an unhashed file under assets/ immutable', async () => {
    const r = await get('/assets/plain.js', 'br');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-cache');
    // No compressed copy was built for it: the file itself, not a 404.
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.body.equals(readFileSync(join(root, 'assets', 'plain.js')))).toBe(true);
  });
});
