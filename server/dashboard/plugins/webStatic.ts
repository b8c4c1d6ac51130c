/**
 * Serves the built web UI (dist/web) with a single-page-app fallback: any
 * GET outside /api and /ws that matches no file gets index.html, so deep
 * links like /runs/abc work after a reload.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export function hasWebBuild(root: string | null | undefined): root is string {
  return !!root && existsSync(join(root, 'index.html'));
}

export async function registerWebStatic(app: FastifyInstance, root: string): Promise<void> {
  await app.register(fastifyStatic, { root, prefix: '/', index: ['index.html'], wildcard: true });
}

/** The SPA fallback, or null when the request is not a page navigation. */
export function spaFallback(req: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const path = req.url.split('?')[0];
  if (req.method !== 'GET' || path.startsWith('/api/') || path === '/api' || path === '/ws') return null;
  return reply.type('text/html').sendFile('index.html');
}
