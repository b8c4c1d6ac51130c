/**
 * The tests' common set-up as Vitest fixtures (`test.extend`): a fixture is
 * built for a test that names it in its parameter and torn down by itself
 * when that test ends, passed or failed, so no test closes or removes by hand
 * what it did not mean to test.
 *
 *   tempDir   a fresh folder under the OS temp dir, removed with its contents
 *   newApp    builds a dashboard with testApp's defaults (in-memory store
 *             unless `dataDir` is given, 10 ms flushes), ready; every app it
 *             built is closed after the test, the newest first
 *   app       one dashboard with those defaults
 *   serveApp  builds a dashboard listening on 127.0.0.1, port 0: the app and its URL
 *   sharedApp one dashboard with the defaults for the whole file, for tests
 *             that build on the state the file's earlier tests left
 *
 * A test may still close an app itself when closing is what it tests (a
 * shutdown, a restart on the same data dir): a second close does nothing.
 * tempDir is set up before the apps and removed after them, so an app whose
 * data dir it is has closed its database first.
 */
/* eslint-disable no-empty-pattern -- Vitest reads what a fixture needs from its first parameter's destructuring: `{}` is "nothing". */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { test as base } from 'vitest';
import type { AppOptions } from '#server/dashboard/app.ts';
import { testApp } from './dashboardApp.ts';

export interface ServedApp {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  url: string;
}

export const test = base
  .extend('tempDir', async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-test-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('newApp', async ({}, { onCleanup }) => {
    const apps: FastifyInstance[] = [];
    onCleanup(async () => {
      for (const app of apps.reverse()) await app.close();
    });
    return async (opts: Partial<AppOptions> = {}): Promise<FastifyInstance> => {
      const app = await testApp(opts);
      apps.push(app);
      return app;
    };
  })
  .extend('app', async ({ newApp }) => newApp())
  .extend('sharedApp', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await testApp();
    onCleanup(() => app.close());
    return app;
  })
  .extend('serveApp', async ({ newApp }) => {
    return async (opts: Partial<AppOptions> = {}): Promise<ServedApp> => {
      const app = await newApp(opts);
      await app.listen({ host: '127.0.0.1', port: 0 });
      return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
    };
  });
