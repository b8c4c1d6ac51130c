/**
 * Operational endpoints: /health (answers while every worker hangs; reads
 * the workers' shared progress records, never their message queues),
 * /v1/models, /version (as vLLM answers it) and the loopback-only admin endpoints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../../common/packageRoot.ts';
import type { Code2WavPool } from '../code2wav/pool.ts';
import type { TelemetryOutbox } from '../telemetry/outbox.ts';
import type { WatchdogMonitor } from '../watchdog/monitor.ts';
import { OpenAIError } from '../requests/chatRequest.ts';

export interface OpsDeps {
  model: string;
  startedAt: number;
  pool: () => Code2WavPool;
  telemetry: TelemetryOutbox;
  monitor: WatchdogMonitor | null;
  watchdogTimeoutS: number;
  inflight: () => number;
}

/** What `GET /version` says: this package's version, marked as the reproduction server's. */
const VERSION = `${(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version} (stallscope reproduction server)`;

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function requireLoopback(req: FastifyRequest): void {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? ''))
    throw new OpenAIError(403, 'admin endpoints answer on loopback only', 'PermissionDeniedError');
}

export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  app.get('/health', async () => ({
    status: 'ok',
    model: deps.model,
    uptimeS: (Date.now() - deps.startedAt) / 1000,
    inflight: deps.inflight(),
    workers: deps.pool().health(),
    watchdog: { timeoutS: deps.watchdogTimeoutS, reports: deps.monitor?.reports ?? 0 },
  }));

  app.get('/v1/models', async () => ({
    object: 'list',
    data: [
      {
        id: deps.model,
        object: 'model',
        created: Math.floor(deps.startedAt / 1000),
        owned_by: 'stallscope',
        root: deps.model,
        parent: null,
      },
    ],
  }));

  app.get('/version', async () => ({ version: VERSION }));

  // Resolves only once every queued telemetry event was delivered (or counted
  // as dropped), so a stall report is never lost to shutdown order.
  app.post('/admin/telemetry/flush', async (req) => {
    requireLoopback(req);
    return deps.telemetry.flush();
  });

  app.post('/admin/workers/reset', async (req) => {
    requireLoopback(req);
    const q = (req.query ?? {}) as { stalledForMs?: string };
    const b = (req.body ?? {}) as { stalledForMs?: unknown };
    const raw = b.stalledForMs ?? q.stalledForMs ?? 0;
    const stalledForMs = Number(raw);
    if (!Number.isFinite(stalledForMs) || stalledForMs < 0)
      throw new OpenAIError(400, 'stalledForMs must be a number ≥ 0', 'BadRequestError', 'stalledForMs');
    const replaced = await deps.pool().reset(stalledForMs);
    return { replaced };
  });
}
