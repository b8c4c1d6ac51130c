/**
 * The dashboard's replies carry nosniff and a Content-Security-Policy, and
 * the built UI runs under that policy: the page renders, the live WebSocket
 * connects, the form draws, and Chromium reports no violation.
 */
import { describe, expect } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '#server/dashboard/plugins/security.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

describe('security headers in a real browser', () => {
  it.beforeAll(async ({ dashboard }) => {
    expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  }, 60_000);

  it('every reply (page, API, a refusal) carries nosniff and the policy', async ({ dashboard }) => {
    for (const path of ['/', '/api/health', '/api/runs/none']) {
      const r = await fetch(dashboard.url + path);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
    }
    const refused = await fetch(`${dashboard.url}/api/runs/none`, {
      method: 'DELETE',
      headers: { origin: 'http://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('the UI works under the policy: live stream connected, the form renders, no violation', async ({
    dashboard,
    page,
  }) => {
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const res = await page.goto(`${dashboard.url}/#/`);
    expect(res?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await expect.poll(() => page.getByTestId('connection').getAttribute('data-state')).toBe('live');
    await page.goto(`${dashboard.url}/#/new?preset=code2wav-hang`);
    await expect.poll(() => page.getByTestId('preset-code2wav-hang').isChecked()).toBe(true);
    expect(violations).toEqual([]);
  });
});
