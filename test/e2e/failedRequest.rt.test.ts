/**
 * A run whose requests a real server refuses, as vLLM refuses a model it does not serve: the run page warns that
 * the requested model is not in the server's /v1/models, and a failed request's panel shows the HTTP status and the
 * first line of the body the server sent (escaped: the body holds markup), not only the reason phrase.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';

const BODY_LINE = '{"object":"error","message":"The model `wrong-model` does not exist. <b>x</b>","code":404}';

let peer: Server;
let peerUrl: string;
let dashboard: RunningServer;
let browser: Browser;
let page: Page;

/** vLLM's answers: its model list, and a 404 with its error body for every completion. */
function startPeer(): Promise<void> {
  peer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'served-model', object: 'model' }] }));
      } else if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(`${BODY_LINE}\nsecond line`);
      } else {
        res.writeHead(404).end();
      }
    });
  });
  return new Promise((resolve) =>
    peer.listen(0, '127.0.0.1', () => {
      peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(dashboard.url + path, init);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

describe('a refused request on the run page (Chromium)', () => {
  beforeAll(async () => {
    await startPeer();
    dashboard = await startServer();
    ({ browser, page } = await openPage());
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
    await new Promise((r) => peer?.close(r));
  });

  it('warns of the model mismatch and shows each failure as HTTP 404 with the body line', async () => {
    const { presets } = await api<{ presets: { id: string; spec: Record<string, unknown> }[] }>('/api/presets');
    const base = presets.find((p) => p.id === 'code2wav-hang')!.spec;
    const spec = {
      ...base,
      label: 'model mismatch',
      model: 'wrong-model',
      target: { kind: 'url', baseUrl: peerUrl },
      numPrompts: 2,
      maxConcurrency: 1,
      numWarmups: 0,
    };
    delete (spec as { readyCheckTimeoutS?: number }).readyCheckTimeoutS;
    const { id } = await api<{ id: string }>('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
    await expect
      .poll(async () => (await api<{ status: string }>(`/api/runs/${id}`)).status, { timeout: 20_000 })
      .not.toBe('running');
    const run = await api<{ summary: { verdictReasons: string[] } }>(`/api/runs/${id}`);
    expect(run.summary.verdictReasons).toContain(
      "warning: model mismatch: the run requested wrong-model, but the server's /v1/models lists served-model",
    );

    await page.goto(`${dashboard.url}/#/runs/${encodeURIComponent(id)}`);
    await expect
      .poll(() => page.getByTestId('model-mismatch').textContent())
      .toBe("⚠ model mismatch: the run requested wrong-model, but the server's /v1/models lists served-model");
    await page.locator('[data-testid="timeline-row"][data-status="failed"]').first().click();
    const answer = page.getByTestId('request-detail').getByTestId('request-http');
    await expect.poll(() => answer.textContent()).toBe(`HTTP 404: ${BODY_LINE}`);
    // The markup in the body is text, not elements.
    await expect.poll(() => answer.locator('b').count()).toBe(0);
  }, 60_000);
});
