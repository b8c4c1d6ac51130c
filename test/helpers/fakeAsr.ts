/**
 * A loopback OpenAI-compatible transcription endpoint for tests
 * (`POST /v1/audio/transcriptions`, multipart). It parses each upload as a
 * real server would (the WAV's format and length, the form fields), records
 * it, and answers with what the script says for it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseWav, type WavInfo } from '#server/engine/transport/reading/wav.ts';

export interface Upload {
  path: string;
  fields: Record<string, string>;
  fileName: string | null;
  fileType: string | null;
  wav: WavInfo;
  /** Samples in the uploaded WAV. */
  samples: number;
  headers: Record<string, string | string[] | undefined>;
}

export type AsrAnswer = { text: string } | { status: number; body?: string } | { hang: true };

export interface FakeAsr {
  url: string;
  uploads: Upload[];
  close(): Promise<void>;
}

export async function startFakeAsr(script: (u: Upload) => AsrAnswer): Promise<FakeAsr> {
  const uploads: Upload[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const form = await new Response(Buffer.concat(chunks), {
            headers: { 'content-type': String(req.headers['content-type']) },
          }).formData();
          const fields: Record<string, string> = {};
          let file: File | null = null;
          for (const [k, v] of form.entries()) {
            if (typeof v === 'string') fields[k] = v;
            else file = v;
          }
          if (!file) throw new Error('no file part');
          const bytes = new Uint8Array(await file.arrayBuffer());
          const wav = parseWav(bytes);
          const u: Upload = {
            path: req.url ?? '',
            fields,
            fileName: file.name,
            fileType: file.type,
            wav,
            samples: wav.pcmBytes / (wav.channels * wav.sampleWidth),
            headers: req.headers,
          };
          uploads.push(u);
          const a = script(u);
          if ('hang' in a) return;
          if ('status' in a) {
            res.writeHead(a.status, { 'content-type': 'application/json' });
            res.end(a.body ?? JSON.stringify({ error: { message: 'scripted failure' } }));
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ text: a.text }));
        } catch (e) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: (e as Error).message } }));
        }
      })();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    uploads,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
