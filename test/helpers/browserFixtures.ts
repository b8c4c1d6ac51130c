/**
 * Fixtures of the browser tests, one of each per test file (the scenarios of
 * a file build on each other the way a maintainer uses the dashboard):
 *
 *   webBuild   dist/web, built first when web/ or shared/ changed
 *   page       a page of Debian's Chromium (playwright-core), 10 s default
 *              timeout; closed, with its throwaway profile, after the file.
 *              A missing Chromium fails every test that asks for a page
 *              with the install hint: never a skip.
 *   dashboard  the real dashboard (`stallscope serve`, serving dist/web) on a
 *              free port with a temp data dir, stopped and its data removed
 *              after the file
 *
 * Set-up time counts against the test or hook that first asks for a
 * fixture: a file starts its dashboard in a beforeAll (60 s) so that a web
 * build or a slow start does not eat its first test's 20 s.
 *
 * The temp folder and app fixtures of fixtures.ts come along (per test).
 */
/* eslint-disable no-empty-pattern -- Vitest reads what a fixture needs from its first parameter's destructuring: `{}` is "nothing". */
import { join } from 'node:path';
import { ensureWebBuild, openPage, ROOT } from './browser.ts';
import { startServer } from './dashboardProcess.ts';
import { test as base } from './fixtures.ts';

export interface Dashboard {
  /** `http://127.0.0.1:<port>` of the process running now. */
  readonly url: string;
  readonly dataDir: string;
  /** A JSON route's answer; any status but 2xx throws with the status and the body. */
  api<T>(path: string, init?: RequestInit): Promise<T>;
  /** POSTs `body` as JSON to a route: `api` with a JSON body. */
  postJson<T>(path: string, body: unknown): Promise<T>;
  /** Stops the process (SIGTERM), keeping its data dir: a restart follows. */
  stop(): Promise<void>;
  /** Starts it again after stop(), on the same port and data dir. */
  restart(): Promise<void>;
}

async function startDashboard(): Promise<Dashboard & { remove(): Promise<void> }> {
  ensureWebBuild();
  let server = await startServer();
  const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(server.url + path, init);
    const body = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body as T;
  };
  return {
    get url() {
      return server.url;
    },
    dataDir: server.dataDir,
    api,
    postJson: <T>(path: string, body: unknown) =>
      api<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    stop: () => server.stop({ keepData: true }),
    async restart() {
      server = await startServer(server.dataDir, { port: Number(new URL(server.url).port) });
    },
    remove: () => server.stop(),
  };
}

export const test = base
  .extend('webBuild', { scope: 'file' }, async ({}) => {
    ensureWebBuild();
    return join(ROOT, 'dist', 'web');
  })
  .extend('page', { scope: 'file' }, async ({}, { onCleanup }) => {
    const { browser, page } = await openPage();
    onCleanup(() => browser.close());
    return page;
  })
  .extend('dashboard', { scope: 'file' }, async ({}, { onCleanup }): Promise<Dashboard> => {
    const dashboard = await startDashboard();
    onCleanup(() => dashboard.remove());
    return dashboard;
  });
