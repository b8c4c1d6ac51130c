/**
 * A team dashboard opened with a view token and with its admin token, in Chromium: the page asks which scope it
 * runs with (GET /api/session) and offers only what that scope may do — a view token's Runs list and run page have
 * no New run, Import, Delete or Pin, and its New run page says why instead of a form whose Start would 403 — and
 * `?token=` leaves the address bar once the cookie is set, so a copied link never carries the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';

const ADMIN = 'adm-scope-test-0123456789';
let server: RunningServer;
let browser: Browser;
let page: Page;
let viewToken = '';
let runId = '';

const admin = { authorization: `Bearer ${ADMIN}` };

/** A fresh browser profile (no cookie from an earlier test) opened at `path` with `?token=`. */
async function openWith(token: string, hash: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${server.url}/?token=${encodeURIComponent(token)}#${hash}`);
}

describe('the UI follows the scope of its token (Chromium)', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer(undefined, { args: ['--token', ADMIN] });
    const t = await fetch(`${server.url}/api/tokens`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'team-view', scope: 'view' }),
    });
    expect(t.status).toBe(201);
    viewToken = ((await t.json()) as { token: string }).token;
    const imp = await fetch(`${server.url}/api/import`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'text/plain', 'x-filename': 'nightly.json' },
      body: JSON.stringify({ date: '20261201-021453', backend: 'openai-chat-omni', num_prompts: 2, completed: 2 }),
    });
    expect(imp.status).toBe(201);
    runId = ((await imp.json()) as { runs: { id: string }[] }).runs[0].id;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says the scope of the token presented, 401 without one', async () => {
    const ask = (h: Record<string, string>) => fetch(`${server.url}/api/session`, { headers: h });
    expect(await (await ask({ authorization: `Bearer ${viewToken}` })).json()).toEqual({
      scope: 'view',
      tokenRequired: true,
    });
    expect(await (await ask(admin)).json()).toEqual({ scope: 'admin', tokenRequired: true });
    expect((await ask({})).status).toBe(401);
  });

  it('a view token: no New run, Import, Delete or Pin; the token leaves the address bar', async () => {
    await openWith(viewToken, '/');
    await page.getByTestId('run-row').first().waitFor();
    // The address bar loses the token once the dashboard has answered; the route stays.
    await expect.poll(() => page.url()).toBe(`${server.url}/#/`);
    await expect
      .poll(() =>
        page
          .context()
          .cookies()
          .then((cs) => cs.map((c) => c.name)),
      )
      .toContain('stallscope_token');
    await expect.poll(() => page.getByRole('link', { name: 'New run' }).count()).toBe(0);
    await expect.poll(() => page.locator('.dropzone').count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);

    await page.goto(`${server.url}/#/runs/${runId}`);
    await expect.poll(() => page.getByTestId('run-page').getAttribute('data-loaded')).toBe('true');
    await expect.poll(() => page.getByTestId('pin-run').count()).toBe(0);

    // The cookie alone carries the page now: a reload without ?token= is still signed in.
    await page.goto(`${server.url}/#/new`);
    await expect.poll(() => page.getByTestId('no-start-scope').count()).toBe(1);
    await expect.poll(() => page.getByTestId('start-run').count()).toBe(0);
  });

  it('the admin token: every action offered, and its token leaves the address bar too', async () => {
    await openWith(ADMIN, `/runs/${runId}`);
    await page.getByTestId('pin-run').waitFor();
    await expect.poll(() => page.url()).toBe(`${server.url}/#/runs/${runId}`);
    await page.goto(`${server.url}/#/`);
    await page
      .getByRole('button', { name: /^Delete/ })
      .first()
      .waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'New run' }).count()).toBe(2);
    await expect.poll(() => page.locator('.dropzone').count()).toBe(1);
    await page.goto(`${server.url}/#/new`);
    await page.getByTestId('start-run').waitFor();
  });
});
