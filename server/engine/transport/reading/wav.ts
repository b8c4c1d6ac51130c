/**
 * A small RIFF/WAVE reader: enough to count the PCM frames of one streamed
 * audio chunk the way Python's `wave` module does for vLLM-Omni's client
 * (channels, sample width in bytes, frame rate, and the PCM bytes of the
 * `data` chunk). Anything that is not a PCM WAV is rejected with a message
 * that says what is wrong, so the request fails with a clear error.
 */

export interface WavInfo {
  channels: number;
  /** Bytes per sample, `(bits + 7) >> 3` as Python's `wave` computes it. */
  sampleWidth: number;
  sampleRate: number;
  /** PCM bytes that `readframes(getnframes())` would return (bounded by what is present). */
  pcmBytes: number;
  /** Where those bytes start in the file. */
  dataOffset: number;
}

export class WavError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavError';
  }
}

const FORMAT_PCM = 1;
const FORMAT_EXTENSIBLE = 0xfffe;

function tag(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
}

export function parseWav(bytes: Uint8Array): WavInfo {
  if (bytes.length < 12) throw new WavError(`not a WAV file: ${bytes.length} bytes, shorter than a RIFF header`);
  if (tag(bytes, 0) !== 'RIFF') throw new WavError('not a WAV file: no RIFF header');
  if (tag(bytes, 8) !== 'WAVE') throw new WavError('not a WAV file: RIFF form is not WAVE');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: Omit<WavInfo, 'pcmBytes' | 'dataOffset'> | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new WavError('malformed WAV: fmt chunk is truncated');
      let format = view.getUint16(body, true);
      if (format === FORMAT_EXTENSIBLE && size >= 40 && body + 26 <= bytes.length)
        format = view.getUint16(body + 24, true);
      if (format !== FORMAT_PCM) throw new WavError(`unsupported WAV format tag ${format} (only PCM is decoded)`);
      const channels = view.getUint16(body + 2, true);
      const sampleRate = view.getUint32(body + 4, true);
      const bits = view.getUint16(body + 14, true);
      if (channels < 1) throw new WavError('malformed WAV: 0 channels');
      if (sampleRate < 1) throw new WavError('malformed WAV: sample rate 0');
      if (bits < 1 || bits > 32) throw new WavError(`malformed WAV: ${bits} bits per sample`);
      fmt = { channels, sampleWidth: (bits + 7) >> 3, sampleRate };
    } else if (id === 'data') {
      if (!fmt) throw new WavError('malformed WAV: data chunk before fmt chunk');
      const frameSize = fmt.channels * fmt.sampleWidth;
      const declared = Math.floor(size / frameSize) * frameSize;
      return { ...fmt, pcmBytes: Math.min(declared, bytes.length - body), dataOffset: body };
    }
    at = body + size + (size & 1);
  }
  throw new WavError(fmt ? 'malformed WAV: no data chunk' : 'malformed WAV: no fmt chunk');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Strict base64: Node's decoder silently skips garbage, which would turn a
 * corrupt chunk into a short WAV; vLLM's `b64decode` raises instead, so we
 * validate first and say what is wrong. Whitespace is tolerated (as Python's
 * non-validating decoder does).
 */
export function decodeBase64Strict(text: string): Uint8Array {
  const compact = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  if (compact.length % 4 !== 0) throw new WavError(`invalid base64: length ${compact.length} is not a multiple of 4`);
  if (!BASE64.test(compact)) throw new WavError('invalid base64: characters outside the base64 alphabet');
  return Buffer.from(compact, 'base64');
}
