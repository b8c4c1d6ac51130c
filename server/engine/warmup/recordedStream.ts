/**
 * A response as a vLLM-Omni server streams it for `openai-chat-omni` (role
 * chunk, text deltas with cumulative usage, audio deltas carrying a whole
 * WAV, the usage chunk, `[DONE]`), for warming the client in-process. Built,
 * not read from disk, so the warm-up needs no file.
 */
const BASE = { id: 'chatcmpl-warm', object: 'chat.completion.chunk', created: 0, model: 'warm' };

const event = (obj: unknown): string => `data: ${JSON.stringify(obj)}\n\n`;

/** A mono PCM16 WAV of `samples` samples at 24 kHz, as base64. */
function wavBase64(samples: number): string {
  const dataBytes = samples * 2;
  const b = Buffer.alloc(44 + dataBytes);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(24_000, 24);
  b.writeUInt32LE(48_000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) b.writeInt16LE(Math.round(Math.sin(i / 8) * 8000), 44 + i * 2);
  return b.toString('base64');
}

/** The stream's events, one string each: 1 role + `tokens` text + `audioChunks` audio + usage + [DONE]. */
export function recordedStream(tokens = 48, audioChunks = 2): string[] {
  const usage = (completion: number): Record<string, number> => ({
    prompt_tokens: 16,
    completion_tokens: completion,
    total_tokens: 16 + completion,
  });
  const choice = (delta: Record<string, string>): unknown[] => [
    { index: 0, delta, logprobs: null, finish_reason: null },
  ];
  const out = [
    event({ ...BASE, choices: choice({ role: 'assistant', content: '' }), usage: usage(0), modality: 'text' }),
  ];
  for (let i = 1; i <= tokens; i++)
    out.push(event({ ...BASE, choices: choice({ content: `w${i} ` }), usage: usage(i), modality: 'text' }));
  const wav = wavBase64(2400);
  for (let i = 0; i < audioChunks; i++)
    out.push(event({ ...BASE, choices: choice({ content: wav }), usage: usage(tokens), modality: 'audio' }));
  out.push(event({ ...BASE, choices: [], usage: usage(tokens) }), 'data: [DONE]\n\n');
  return out;
}
