/**
 * The dashboard's replies carry nosniff and a Content-Security-Policy, and
 * the built UI runs under that policy: the page renders, the live WebSocket
 * connects, a chart-bearing page draws, and Chromium reports no violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, startServer, type Browser, type RunningServer } from '#test/e2e/harness.ts';
import { CONTENT_SECURITY_POLICY } from '#server/dashboard/plugins/security.ts';

let server: RunningServer;
let browser: Browser;
let page: Page;
const violations: string[] = [];

describe('security headers in a real browser', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer();
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('every reply (page, API, a refusal) carries nosniff and the policy', async () => {
    for (const path of ['/', '/api/health', '/api/runs/none']) {
      const r = await fetch(server.url + path);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
    }
    const refused = await fetch(`${server.url}/api/runs/none`, {
      method: 'DELETE',
      headers: { origin: 'http://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('the UI works under the policy: live stream connected, the form and the runs list render, no violation', async () => {
    const res = await page.goto(`${server.url}/#/`);
    expect(res?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await expect.poll(() => page.getByTestId('connection').getAttribute('data-state')).toBe('live');
    await page.goto(`${server.url}/#/new?preset=code2wav-hang`);
    await expect.poll(() => page.getByTestId('preset-code2wav-hang').isChecked()).toBe(true);
    expect(violations).toEqual([]);
  });
});
