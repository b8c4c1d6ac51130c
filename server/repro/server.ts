/**
 * The reproduction server: an OpenAI-compatible omni server whose Code2Wav
 * stage runs in worker threads, with the fault plan, the watchdog and the
 * telemetry sinks. `buildTargetApp` builds it (workers start with the app's
 * ready(), everything stops with close()); `startReproServer` listens on
 * 127.0.0.1.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { resolveOptions, type ReproServerOptions, type ResolvedOptions } from './config.ts';
import { Code2WavPool } from './code2wav/pool.ts';
import { FaultPlan } from './code2wav/faults.ts';
import { TelemetryOutbox, type TelemetrySink } from './telemetry/outbox.ts';
import { HttpTelemetrySink } from './telemetry/httpSink.ts';
import { StreamTelemetrySink } from './telemetry/streamSink.ts';
import { WatchdogMonitor } from './watchdog/monitor.ts';
import { OpenAIError } from './requests/chatRequest.ts';
import { registerChatRoute } from './routes/chat.ts';
import { registerSpeechRoute } from './routes/speech.ts';
import { registerOpsRoutes } from './routes/ops.ts';
import { registerRealtimeRoute } from './routes/realtime.ts';

export type { ReproServerOptions } from './config.ts';

/** What a built target holds; tests and the CLI reach it through `targetOf(app)`. */
export interface TargetContext {
  options: ResolvedOptions;
  pool: Code2WavPool;
  telemetry: TelemetryOutbox;
  monitor: WatchdogMonitor | null;
}

const contexts = new WeakMap<FastifyInstance, TargetContext>();
export const targetOf = (app: FastifyInstance): TargetContext => contexts.get(app)!;

function sinksFor(o: ResolvedOptions): TelemetrySink[] {
  const t = o.telemetry;
  const sinks: TelemetrySink[] = [];
  if (t.url)
    sinks.push(
      new HttpTelemetrySink({ url: t.url, token: t.token, maxQueue: t.maxQueue, flushIntervalMs: t.flushIntervalMs }),
    );
  if (t.file) sinks.push(new StreamTelemetrySink(t.file));
  else if (t.stdout) sinks.push(new StreamTelemetrySink('-'));
  return sinks;
}

export function buildTargetApp(opts: ReproServerOptions = {}): FastifyInstance {
  const o = resolveOptions(opts);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024, forceCloseConnections: true });
  const telemetry = new TelemetryOutbox(o.model, sinksFor(o), opts.onTelemetry);
  const active = new Set<AbortController>();
  const log = opts.log ?? ((text: string) => process.stderr.write(`${text}\n`));
  let monitor: WatchdogMonitor | null = null;
  const pool = new Code2WavPool({
    workers: o.workers,
    maxBatch: o.maxBatch,
    modelName: o.model,
    seed: o.seed,
    settings: { steps: o.cfmSteps, cfg: o.cfg, cfgRate: o.cfgRate, mode: o.mode },
    faults: new FaultPlan(o.faults, o.seed),
    telemetry,
    inflight: () => active.size,
    onOpEnd: (w, op, endMs) => monitor?.opEnded(w, op, endMs),
  });
  if (o.watchdogTimeoutS > 0) {
    monitor = new WatchdogMonitor({
      timeoutS: o.watchdogTimeoutS,
      model: o.model,
      workers: () => pool.workers(),
      emit: (e) => telemetry.emit(e),
      log,
    });
  }
  contexts.set(app, { options: o, pool, telemetry, monitor });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof OpenAIError) return reply.code(err.status).send(err.toJSON());
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    const e = new OpenAIError(status, (err as Error).message, status < 500 ? 'BadRequestError' : 'InternalServerError');
    return reply.code(status).send(e.toJSON());
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(new OpenAIError(404, `no route for ${req.method} ${req.url}`, 'NotFoundError').toJSON()),
  );

  const routeDeps = {
    model: o.model,
    active,
    omni: {
      pool,
      telemetry,
      tokenRate: o.tokenRate,
      codesPerToken: o.codesPerToken,
      defaultMaxTokens: o.defaultMaxTokens,
      seed: o.seed,
    },
  };
  registerChatRoute(app, routeDeps);
  registerSpeechRoute(app, routeDeps);
  registerRealtimeRoute(app, routeDeps);
  registerOpsRoutes(app, {
    model: o.model,
    startedAt: Date.now(),
    pool: () => pool,
    telemetry,
    monitor,
    watchdogTimeoutS: o.watchdogTimeoutS,
    inflight: () => active.size,
  });

  app.addHook('onReady', async () => {
    await pool.ready();
    monitor?.start();
  });
  // Streams stuck behind a hung worker would keep close() waiting: end them first.
  app.addHook('preClose', async () => {
    for (const c of active) c.abort();
  });
  app.addHook('onClose', async () => {
    await monitor?.close();
    await pool.close();
    await telemetry.close();
  });
  return app;
}

export async function startReproServer(
  opts: ReproServerOptions = {},
): Promise<{ url: string; port: number; close(): Promise<void>; app: FastifyInstance }> {
  const app = buildTargetApp(opts);
  try {
    await app.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  } catch (err) {
    await app.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, port, close: () => app.close(), app };
}
