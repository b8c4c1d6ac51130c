/**
 * stallscope's own transcription server (`python/asr_server.py`), run by
 * the Python the user names (docs/design.md#local-asr): checked when the
 * run starts — a missing package is named in one line before anything is
 * sent — then started for the evaluation, after the benchmark's sockets are
 * closed, and stopped with a deadline after it. It serves
 * `/v1/audio/transcriptions` on 127.0.0.1 at a free port it reports, so the
 * gate's client, normalisation and scoring are the same as with `--asr-url`.
 */
import { execFile, spawn, type ChildProcess, type ExecFileException } from 'node:child_process';
import { StallscopeError } from '../../../shared/errors.ts';
import { pythonProgram } from '../../common/packageRoot.ts';

export const ASR_SERVER_SCRIPT = pythonProgram('asr_server.py');

/** Chinese is recognised by this funasr model, as vLLM-Omni's seed_tts_eval does, whatever --asr-model says. */
export const PARAFORMER_ZH = 'paraformer-zh';

/** The server's exit code when a package is missing (asr_server.py EXIT_MISSING). */
const EXIT_MISSING = 3;
/** Bytes of the server's stderr kept (the last ones): what is shown when it fails. */
const STDERR_KEPT = 16 * 1024;
/** Seconds for the package check (importing torch is the slow part). */
const CHECK_TIMEOUT_S = 120;

export interface LocalAsrOptions {
  python: string;
  /** The Whisper model (English); Chinese runs paraformer-zh. */
  model: string;
  language: 'en' | 'zh';
  /** Seconds to load the model and listen. */
  startTimeoutS: number;
  /** Seconds between asking it to stop and killing it (default 5). */
  stopTimeoutS?: number;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const FIX =
  'install them into that Python, pass --asr-python naming a Python that has them ' +
  '(e.g. the one vLLM-Omni runs in), or --asr-url naming a running transcription server';

/**
 * Refuses, before anything is sent, a Python that cannot run the server:
 * missing, or lacking a package (named in one line).
 */
export async function checkLocalAsr(o: Pick<LocalAsrOptions, 'python' | 'language' | 'env'>): Promise<void> {
  const refuse = (detail: string): never => {
    throw new StallscopeError('CONFIG_ASR_PYTHON', detail, 'seedTtsEval.localAsr.python');
  };
  const result = await new Promise<{ code: number | null; stderr: string; error?: ExecFileException }>((resolve) => {
    execFile(
      o.python,
      [ASR_SERVER_SCRIPT, '--check', '--language', o.language],
      { timeout: CHECK_TIMEOUT_S * 1000, env: o.env ?? process.env, maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stderr: String(stderr),
          error: error ?? undefined,
        }),
    );
  });
  if (result.code === 0) return;
  if (result.error?.code === 'ENOENT') refuse(`--asr-python '${o.python}' was not found; ${FIX}`);
  if (result.code === EXIT_MISSING) refuse(`${lastLine(result.stderr)}; ${FIX}`);
  if (result.error?.killed) refuse(`'${o.python}' did not finish checking its packages within ${CHECK_TIMEOUT_S} s`);
  refuse(`'${o.python}' could not check its packages (exit ${result.code}): ${tail(result.stderr, 2000)}`);
}

export class LocalAsrServer {
  private stderr = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly o: LocalAsrOptions,
    public url = '',
  ) {
    child.stderr!.on('data', (c: Buffer) => (this.stderr = tail(this.stderr + c.toString(), STDERR_KEPT)));
    this.exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
  }

  /** Starts the server and waits for its URL; throws with its stderr when it cannot start. */
  static async start(o: LocalAsrOptions, signal?: AbortSignal): Promise<LocalAsrServer> {
    const args = [ASR_SERVER_SCRIPT, '--model', o.model, '--language', o.language, '--port', '0'];
    // Its own process group, so a stop past the deadline kills whatever it started too.
    const child = spawn(o.python, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: o.env ?? process.env });
    const server = new LocalAsrServer(child, o);
    try {
      server.url = await server.listening(signal);
      return server;
    } catch (e) {
      await server.stop();
      throw new Error(
        `${(e as Error).message}${server.stderr ? `; its stderr ends:\n${tail(server.stderr, 4000)}` : ''}`,
        { cause: e },
      );
    }
  }

  private listening(signal?: AbortSignal): Promise<string> {
    const { child, o } = this;
    return new Promise((resolve, reject) => {
      let out = '';
      const done = (f: () => void): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        child.stdout!.removeAllListeners('data');
        f();
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`the transcription server did not listen within ${o.startTimeoutS} s`))),
        o.startTimeoutS * 1000,
      );
      const onAbort = (): void => done(() => reject(new Error('interrupted')));
      signal?.addEventListener('abort', onAbort, { once: true });
      child.once('error', (e) => done(() => reject(new Error(`'${o.python}' could not be started: ${e.message}`))));
      void this.exited.then(() =>
        done(() => reject(new Error(`the transcription server exited (${describeExit(this.exit)}) before listening`))),
      );
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        let nl: number;
        while ((nl = out.indexOf('\n')) >= 0) {
          const line = out.slice(0, nl).trim();
          out = out.slice(nl + 1);
          const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
          if (m) return done(() => resolve(m[1]));
          if (line) o.log(`transcription server: ${line.slice(0, 300)}`);
        }
        out = tail(out, 4096);
      });
    });
  }

  /** Set when it exited by itself (before stop): what went wrong and its stderr. */
  failure(): string | null {
    if (!this.exit) return null;
    return `the transcription server exited (${describeExit(this.exit)})${this.stderr ? `; its stderr ends:\n${tail(this.stderr, 4000)}` : ''}`;
  }

  /** Closes its stdin and sends SIGTERM; past the deadline, kills its process group. */
  async stop(): Promise<void> {
    if (this.exit || this.child.exitCode !== null || this.child.pid === undefined) return;
    this.child.stdin!.end();
    this.child.kill('SIGTERM');
    const deadline = (this.o.stopTimeoutS ?? 5) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), deadline)));
    const killed = await Promise.race([this.exited.then(() => false), late]);
    clearTimeout(timer);
    if (killed) {
      this.o.log(`transcription server: still running ${deadline / 1000} s after SIGTERM; killed`);
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        this.child.kill('SIGKILL');
      }
      await this.exited;
    }
  }
}

function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null } | null): string {
  if (!exit) return 'running';
  return exit.signal ? `killed by ${exit.signal}` : `exit ${exit.code}`;
}

function tail(s: string, n: number): string {
  return s.length > n ? s.slice(s.length - n) : s;
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
