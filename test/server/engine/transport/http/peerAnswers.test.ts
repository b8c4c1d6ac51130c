/**
 * Answers a target may give that are not an event stream, each failing its
 * own request with a reason that names what happened: a redirect (status and
 * Location, not followed) and a compressed body the client never asked for.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { harness } from '#test/helpers/dispatchHarness.ts';
import { DONE, roleEvent, textEvent } from '#test/helpers/sse.ts';

let server: Server | null = null;
afterEach(async () => {
  if (server) await new Promise<void>((r) => server!.close(() => r()));
  server = null;
});

async function answer(write: (res: ServerResponse, acceptEncoding: string | undefined) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => write(res, req.headers['accept-encoding']));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function one(url: string) {
  const h = harness(url, [0], {});
  const r = await runDispatch(h.input);
  await h.agent.destroy();
  return { status: r.statuses.at(0), record: r.records.at(0)! };
}

const stream = [roleEvent(), textEvent('hello', 1), DONE].join('');

describe('a target answering something else than an event stream', () => {
  it('a 302 says its status and where it pointed, and is not followed', async () => {
    let requests = 0;
    const url = await answer((res) => {
      requests++;
      res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
      res.end();
    });
    const { status, record } = await one(url);
    expect(status).toBe('failed');
    expect(record.errorCode).toBe('REQ_HTTP_STATUS');
    expect(record.error).toBe('HTTP 302 Found: a redirect to http://127.0.0.1:9/elsewhere, not followed');
    expect(requests).toBe(1);
  });

  it("a 500 keeps vLLM's reason phrase alone", async () => {
    const url = await answer((res) => {
      res.writeHead(500);
      res.end('boom');
    });
    expect((await one(url)).record.error).toBe('Internal Server Error');
  });

  it('a gzip-encoded event stream nobody asked for is named as such, not as bad UTF-8', async () => {
    let asked: string | undefined = 'unset';
    const url = await answer((res, acceptEncoding) => {
      asked = acceptEncoding;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(gzipSync(stream));
    });
    const { status, record } = await one(url);
    expect(asked).toBeUndefined();
    expect(status).toBe('failed');
    expect(record.errorCode).toBe('REQ_NOT_EVENT_STREAM');
    expect(record.error).toBe('response is gzip-encoded, which was not asked for (no Accept-Encoding is sent)');
  });

  it('the control: the same stream uncompressed (and with content-encoding: identity) completes', async () => {
    const url = await answer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'identity' });
      res.end(stream);
    });
    expect((await one(url)).status).toBe('completed');
  });
});
