/**
 * `stallscope asr-server`: stallscope's own transcription server alone
 * (python/asr_server.py, docs/design.md#local-asr), the one `stallscope
 * bench --seed-tts-wer-eval` starts when it is given no `--asr-url`. Run
 * alone it serves `/v1/audio/transcriptions` on 127.0.0.1 until SIGINT or
 * SIGTERM; its URL is the `listening on` line. The Python it runs in gets a
 * standard input this process holds open, so it ends with this process.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { DEFAULT_ASR_MODEL, DEFAULT_ASR_PYTHON } from '../../shared/config/runConfig.ts';
import { ASR_SERVER_SCRIPT } from '../engine/accuracy/localAsr.ts';

export const ASR_SERVER_USAGE = `usage: stallscope asr-server [options]

stallscope's own transcription server: POST /v1/audio/transcriptions (16 kHz mono 16-bit WAV
uploads, as the Seed-TTS gate sends them) on 127.0.0.1; prints "listening on URL" once its model is loaded.

  --python PY       the Python that runs it (default ${DEFAULT_ASR_PYTHON} on PATH); it needs torch and
                    transformers (zh: funasr and zhconv)
  --model M         the Whisper model for English, a Hub id or a folder (default ${DEFAULT_ASR_MODEL})
  --language en|zh  en: Whisper through transformers; zh: paraformer-zh through funasr (default en)
  --port N          the port (default 0: a free one)

Bounded whatever its clients send: an upload is read only once the recogniser is free (one at a time;
the others wait with their bodies unread), so memory holds one upload.
  --max-upload-bytes B  the request body cap: a larger content-length is refused with 413, unread
                        (default 67108864)
  --read-timeout S      seconds a request has to arrive (its headers, then its body); a sender that
                        stalls or trickles is dropped then (default 30)
  --max-connections N   connections served at once, one thread each; one more is answered 503 with
                        Retry-After (default 64)

The model runs on the GPU when torch sees one (SEED_TTS_EVAL_DEVICE overrides, e.g. cpu).
exit codes: 0 stopped by a signal, 2 usage error or a missing Python package, 1 the server failed`;

/** The Python program's exit code for a missing package (asr_server.py EXIT_MISSING). */
const EXIT_MISSING = 3;

export async function run(argv: string[]): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean', short: 'h' },
        python: { type: 'string' },
        model: { type: 'string' },
        language: { type: 'string' },
        port: { type: 'string' },
        'max-upload-bytes': { type: 'string' },
        'read-timeout': { type: 'string' },
        'max-connections': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    console.error(`stallscope asr-server: ${(e as Error).message}\n\n${ASR_SERVER_USAGE}`);
    return 2;
  }
  if (v.help) {
    console.log(ASR_SERVER_USAGE);
    return 0;
  }
  const language = v.language ?? 'en';
  const port = v.port ?? '0';
  if (language !== 'en' && language !== 'zh') return usageError(`--language '${language}' is not en or zh`);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return usageError(`--port '${port}' is not a port number`);
  const bounds: string[] = [];
  for (const [flag, value, pattern] of [
    ['max-upload-bytes', v['max-upload-bytes'], /^[1-9]\d{0,15}$/],
    ['read-timeout', v['read-timeout'], /^(?:\d{1,6}(?:\.\d{1,3})?)$/],
    ['max-connections', v['max-connections'], /^[1-9]\d{0,4}$/],
  ] as const) {
    if (value === undefined) continue;
    if (!pattern.test(value) || Number(value) <= 0) return usageError(`--${flag} '${value}' is not a positive number`);
    bounds.push(`--${flag}`, value);
  }
  const python = v.python ?? DEFAULT_ASR_PYTHON;
  const args = [
    ASR_SERVER_SCRIPT,
    '--model',
    v.model ?? DEFAULT_ASR_MODEL,
    '--language',
    language,
    '--port',
    port,
    ...bounds,
  ];
  const child = spawn(python, args, { stdio: ['pipe', 'inherit', 'inherit'] });
  const stop = (): void => void child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let signalled = false;
  process.once('SIGINT', () => (signalled = true));
  process.once('SIGTERM', () => (signalled = true));
  try {
    const { code, error } = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    if (error) {
      console.error(`stallscope asr-server: '${python}' could not be started: ${error.message}`);
      return 2;
    }
    if (code === EXIT_MISSING) return 2;
    return code === 0 || signalled ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function usageError(message: string): number {
  console.error(`stallscope asr-server: ${message}\n\n${ASR_SERVER_USAGE}`);
  return 2;
}
