/**
 * `stallscope <command>`: dispatches to one module per command. Each command
 * module exports `run(argv): Promise<number>` returning the process exit code.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Command = { run: (argv: string[]) => Promise<number> };

/**
 * The compiled CLI runs `bench` from its one-module bundle (scripts/build.mjs): ~0.6 s less CPU at start than
 * loading ~300 files. From the sources (tsx), with STALLSCOPE_UNBUNDLED=1 (a tool that patches the per-file
 * modules, such as the bench's loop watcher), or for `--help` (a few small modules; the bundle is 1.8 MB to
 * parse), the modules themselves.
 */
async function loadBench(argv: string[]): Promise<Command> {
  const bundle = new URL('./benchBundle.js', import.meta.url);
  const help = argv.includes('--help') || argv.includes('-h');
  if (
    import.meta.url.endsWith('.js') &&
    !help &&
    !process.env.STALLSCOPE_UNBUNDLED &&
    existsSync(fileURLToPath(bundle))
  )
    return (await import(bundle.href)) as Command;
  return import('./bench.ts');
}

const COMMANDS: Record<string, (argv: string[]) => Promise<Command>> = {
  bench: loadBench,
  'repro-server': () => import('./reproServer.ts'),
  serve: () => import('./serve.ts'),
  'asr-server': () => import('./asrServer.ts'),
  db: () => import('./db.ts'),
  token: () => import('./token.ts'),
};

const USAGE = `usage: stallscope <command> [options]

commands:
  bench          run a streaming benchmark (vllm bench serve --omni compatible flags)
  repro-server   start the reproduction server (omni server with a Code2Wav worker stage)
  serve          start the dashboard (web UI, REST, WebSocket) with the embedded repro server
  asr-server     start stallscope's own transcription server (Whisper through transformers) alone
  db             move all runs between the embedded SQLite store and PostgreSQL (db export / db import)
  token          create, list and revoke the dashboard's scoped tokens (report, view, admin)

Run 'stallscope <command> --help' for the command's options.`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(USAGE);
    return cmd ? 0 : 2;
  }
  const load = COMMANDS[cmd];
  if (!load) {
    console.error(`stallscope: unknown command '${cmd}'\n\n${USAGE}`);
    return 2;
  }
  const mod = await load(rest);
  return mod.run(rest);
}
