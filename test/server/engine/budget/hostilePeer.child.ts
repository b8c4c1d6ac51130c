/**
 * A hostile target in its own process (so the bench's memory is the bench's
 * alone), on 127.0.0.1:0, printing its URL as one line. Modes (argv[2]):
 * - `sse-deltas`: each chat request gets a 200 event stream of text deltas
 *   without end, each delta 256 KB to 8 MB (seeded sizes), written as fast as
 *   the client reads (backpressure respected);
 * - `ws-deltas`: each realtime turn gets `response.output_text.delta` frames
 *   of the same sizes without end;
 * - `ws-errors`: each realtime turn gets one `error` event of 15 MB;
 * - `pcm-bytes`: each `/v1/audio/speech` request gets raw PCM chunks of the same sizes without end.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const mode = process.argv[2];
const MIN = 256 * 1024;
const MAX = 8 * 1024 * 1024;
let seed = 42;
/** 256 KB–8 MB, from a fixed linear congruential sequence: the same sizes every run. */
function nextSize(): number {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return MIN + (seed % (MAX - MIN));
}
/** One letter repeated: a delta the bench must count and cannot compress away. */
const filler = (n: number): string => 'x'.repeat(n);

function chatChunk(content: string, tokens: number): string {
  const event = {
    id: 'chatcmpl-h',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'hostile',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    usage: { prompt_tokens: 1, completion_tokens: tokens, total_tokens: tokens + 1 },
    modality: 'text',
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}

function endlessSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let tokens = 0;
  // One chunk a turn of the loop (see realtimeTurn): a `while` that never yields would starve this process.
  const write = (): void => {
    if (res.destroyed) return;
    tokens++;
    if (!res.write(chatChunk(filler(nextSize()), tokens))) res.once('drain', write);
    else setImmediate(write);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  write();
}

function realtimeTurn(ws: WebSocket, responseId: string): void {
  ws.send(JSON.stringify({ type: 'response.created', response: { id: responseId } }));
  if (mode === 'ws-errors') {
    ws.send(JSON.stringify({ type: 'error', error: { message: `E${filler(15 * 1024 * 1024)}` } }));
    return;
  }
  const write = (): void => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify({ type: 'response.output_text.delta', response_id: responseId, delta: filler(nextSize()) }));
    // One frame a turn of the loop, never a loop of sends: while the socket takes everything at once a `while` never
    // yields, and this process then never sees the client close, nor answers another session (the run "hung" here,
    // not in the bench). ws buffers what the socket cannot take: wait for it to drain, as the SSE side does.
    if (ws.bufferedAmount > MAX) setTimeout(write, 5);
    else setImmediate(write);
  };
  write();
}

/** Raw PCM (zeros) of the same sizes without end: what `openai-audio-speech` reads. */
function endlessPcm(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'audio/pcm' });
  const write = (): void => {
    if (res.destroyed) return;
    if (!res.write(Buffer.alloc(nextSize()))) res.once('drain', write);
    else setImmediate(write);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  write();
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (mode === 'sse-deltas' && req.url?.startsWith('/v1/chat/completions')) return endlessSse(res);
    if (mode === 'pcm-bytes' && req.url?.startsWith('/v1/audio/speech')) return endlessPcm(res);
    // The ready check and anything else: a small normal answer.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chatChunk('ok', 1) + 'data: [DONE]\n\n');
  });
});
const wss = new WebSocketServer({ server, path: '/v1/realtime' });
let responses = 0;
wss.on('connection', (ws) => {
  let answered = false;
  ws.on('message', (data) => {
    const e = JSON.parse(String(data)) as { type: string };
    if (e.type === 'session.update') ws.send(JSON.stringify({ type: 'session.created', session: { id: 'h' } }));
    else if (e.type === 'response.create') realtimeTurn(ws, `resp_${responses++}`);
    // A seeded native session (the default tts flow) is answered at its first audio unit, as by vLLM-Omni.
    else if (e.type === 'input_audio_buffer.append' && !answered) {
      answered = true;
      realtimeTurn(ws, `resp_${responses++}`);
    }
  });
  ws.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
