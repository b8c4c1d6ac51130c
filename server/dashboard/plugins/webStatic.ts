/**
 * Serves the built web UI (dist/web) with a single-page-app fallback: any
 * GET outside /api and /ws that matches no file gets index.html, so deep
 * links like /runs/abc work after a reload.
 *
 * Sent compressed and cached for what each file is (docs/performance.md#cold-loads): the build writes a `.br` and a
 * `.gz` beside each text file (scripts/precompress.ts), sent as they are when the browser accepts them — nothing is
 * compressed per request on the event loop. Vite's content-hashed files under `assets/` never change under their
 * name, so a browser keeps them a year without asking; everything else (index.html, which names the current hashes)
 * is revalidated on every load.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export function hasWebBuild(root: string | null | undefined): root is string {
  return !!root && existsSync(join(root, 'index.html'));
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** Vite's output name for a hashed file: `name-<8 url-safe characters>.ext` (compressed copies end `.br`/`.gz`). */
const HASHED = /-[A-Za-z0-9_-]{8}\.[a-z0-9]+(?:\.br|\.gz)?$/;

/** Whether a file served from `root` is one of Vite's content-hashed assets (under `assets/`, its name hashed). */
function isHashedAsset(root: string, file: string): boolean {
  return dirname(file) === join(root, 'assets') && HASHED.test(basename(file));
}

export async function registerWebStatic(app: FastifyInstance, root: string): Promise<void> {
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    wildcard: true,
    preCompressed: true,
    // The header below is the whole policy: `send`'s default `max-age=0` would be written after it.
    cacheControl: false,
    setHeaders(res, file) {
      res.setHeader('cache-control', isHashedAsset(root, file) ? IMMUTABLE : REVALIDATE);
      // The same URL answers br, gzip or plain bytes by the request's Accept-Encoding: a cache must key on it.
      res.setHeader('vary', 'accept-encoding');
    },
  });
}

/** The SPA fallback, or null when the request is not a page navigation. */
export function spaFallback(req: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const path = req.url.split('?')[0];
  if (req.method !== 'GET' || path.startsWith('/api/') || path === '/api' || path === '/ws') return null;
  return reply.type('text/html').sendFile('index.html');
}
