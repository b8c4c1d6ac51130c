/**
 * Builds the dashboard app (it never listens; server/cli/serve.ts does):
 * store, the one broadcaster, run manager, security guards, REST routes,
 * the /ws live stream and the built web UI.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { openStore } from './store/openStore.ts';
import { Hub } from './hub/hub.ts';
import type { SessionOptions } from './hub/clientSession.ts';
import { RunManager, type ManagerDeps } from './runs/manager.ts';
import { ExternalRuns } from './runs/externalRuns.ts';
import type { RunStarter } from './runs/types.ts';
import { decorateContext } from './plugins/context.ts';
import { installSecurity, type SecurityOptions } from './plugins/security.ts';
import { installTypeBoxValidation } from './plugins/validation.ts';
import { hasWebBuild, registerWebStatic, spaFallback } from './plugins/webStatic.ts';
import { installErrorHandler } from './plugins/errors.ts';
import { runRoutes } from './routes/runs.ts';
import { DEFAULT_BOARD, stallRoutes } from './routes/stalls.ts';
import { abandonRoutes } from './routes/abandon.ts';
import { presetRoutes } from './routes/presets.ts';
import { ingestRoutes } from './routes/ingest.ts';
import { externalRoutes } from './routes/external.ts';
import { importRoutes } from './routes/import.ts';
import { exportRoutes } from './routes/export.ts';
import { bugReportRoutes } from './routes/bugReport.ts';
import { wsRoutes } from './routes/ws.ts';
import { healthRoutes } from './routes/health.ts';
import { DEFAULT_DASHBOARD_PORT } from '../../shared/protocol/dashboardPort.ts';
import { TokenService } from './auth/tokens.ts';
import { Pruner, type PrunerOptions } from './retention/pruner.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { sessionRoutes } from './routes/session.ts';
import { pinRoutes } from './routes/pins.ts';
import { metricsRoutes } from './routes/metrics.ts';

export interface AppOptions {
  /** Data directory; null → in-memory database (tests). */
  dataDir: string | null;
  /** A PostgreSQL URL (postgres://…): the runs go there instead of the data directory's SQLite. */
  database?: string | null;
  /** The address the server will bind (for the Host allow-list and the token rule). */
  host?: string;
  /** The port it will listen on; 0 → read back from the server after listen. */
  port?: number;
  allowedHosts?: string[];
  /** Required when `host` is not loopback (serve.ts generates one). */
  token?: string | null;
  /** Built web UI (dist/web); served when it holds index.html. */
  webRoot?: string | null;
  logger?: boolean;
  store?: { flushIntervalMs?: number; maxBatch?: number; bufferEvents?: number };
  ws?: SessionOptions;
  /** Replace the run manager (tests), or adjust the real one's dependencies. */
  runManager?: (hub: Hub) => RunStarter;
  manager?: Partial<Omit<ManagerDeps, 'hub' | 'ingestUrl' | 'ingestToken'>>;
  /** Where the causes of 500s are written; default stderr. */
  logFailure?: (line: string) => void;
  /** A reported run none of whose batches reached any process for this long is recorded interrupted (10 min). */
  reportedIdleMs?: number;
  /** Body limit of ordinary JSON routes (import/ingest have their own). */
  bodyLimit?: number;
  /** Read the default stall board once the app is ready, so the first viewer's is kept (the CLI's dashboard does). */
  warmBoard?: boolean;
  /** `--retain-days` / `--retain-runs` and the pruner's pace (docs/design.md#retention); default: keep everything. */
  retention?: Partial<Omit<PrunerOptions, 'store' | 'isActive'>>;
}

/** How long ready waits for the warm-up board read (opts.warmBoard). */
const WARM_WAIT_MS = 5000;

/** Where this server can reach itself: loopback when bound everywhere, else the bound address. */
export function selfHost(bindHost: string): string {
  if (bindHost === '0.0.0.0' || bindHost === '::' || bindHost === 'localhost' || bindHost === '') return '127.0.0.1';
  return bindHost.includes(':') ? `[${bindHost}]` : bindHost;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  // return503OnClosing off: while closing, live runs still end in order and their targets' final telemetry must get in.
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: false,
  });
  const store = await openStore({ dataDir: opts.dataDir, database: opts.database ?? null, ...opts.store });
  const recovered = await store.admin.recoverInterrupted(Date.now());
  if (recovered.length) app.log.warn(`marked ${recovered.length} run(s) left running as interrupted`);
  const hub = new Hub(store);
  const host = opts.host ?? '127.0.0.1';
  const ingestUrl = (runId: string) => {
    const addr = app.server.address();
    const port = addr && typeof addr === 'object' ? addr.port : (opts.port ?? DEFAULT_DASHBOARD_PORT);
    // The token is never part of the URL: the URL is on the embedded repro server's command line, visible in `ps`.
    return `http://${selfHost(host)}:${port}/api/ingest?runId=${encodeURIComponent(runId)}`;
  };
  const runManager = opts.runManager
    ? opts.runManager(hub)
    : new RunManager({ hub, ingestUrl, ingestToken: opts.token ?? null, log: (l) => app.log.info(l), ...opts.manager });
  const externalRuns = new ExternalRuns(hub, opts.reportedIdleMs);
  // The dashboard's own token is an admin token; stored scoped tokens count only when it has one.
  const tokens = new TokenService(store.tokens, opts.token ?? null);
  const pruner = new Pruner({
    store: store.retention,
    isActive: (id) => hub.isActive(id),
    ...opts.retention,
    policy: opts.retention?.policy ?? { retainDays: null, retainRuns: null },
  });
  decorateContext(app, { store, hub, runManager, externalRuns, tokens, pruner });

  installTypeBoxValidation(app);
  const web = hasWebBuild(opts.webRoot) ? opts.webRoot : null;
  installErrorHandler(app, web ? spaFallback : undefined, opts.logFailure);
  const security: SecurityOptions = { bindHost: host, allowedHosts: opts.allowedHosts, tokens };
  installSecurity(app, security);

  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(healthRoutes);
  await app.register(runRoutes);
  await app.register(stallRoutes);
  await app.register(abandonRoutes);
  await app.register(presetRoutes);
  await app.register(externalRoutes);
  await app.register(ingestRoutes);
  await app.register(importRoutes);
  await app.register(exportRoutes);
  await app.register(bugReportRoutes);
  await app.register(wsRoutes(opts.ws ?? {}));
  await app.register(tokenRoutes);
  await app.register(sessionRoutes);
  await app.register(pinRoutes);
  await app.register(metricsRoutes(pruner));
  if (web) await registerWebStatic(app, web);

  // Live runs end while the server still listens: an embedded repro server's last telemetry flush needs /api/ingest.
  app.addHook('preClose', async () => {
    await runManager.shutdown();
    await externalRuns.shutdown();
  });
  // Pruning starts once the app is ready, off the request path; it stops (at its next batch) before the store closes.
  // The default board read once at the start (opts.warmBoard): the first viewer is served a kept board
  // (docs/design.md#board-cache), not the store's coldest read. Ready waits for it up to WARM_WAIT_MS (a year of
  // history reads in well under a second), then it goes on in the background; a failure is the next viewer's to see.
  let warming: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async () => {
    pruner.start();
    if (!opts.warmBoard) return;
    const { filter, last, pick } = DEFAULT_BOARD;
    warming = store.board.viewJson(filter, last, pick).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([warming, new Promise((r) => (timer = setTimeout(r, WARM_WAIT_MS)))]);
    clearTimeout(timer);
  });
  app.addHook('onClose', async () => {
    await pruner.stop();
    // Closing the store ends a warm-up read still running (SQLite's reader thread refuses it): then it is awaited.
    await store.close();
    await warming;
  });
  return app;
}
