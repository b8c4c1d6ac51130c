/**
 * `stallscope <command>`: dispatches to one module per command. Each command
 * module exports `run(argv): Promise<number>` returning the process exit code.
 */
const COMMANDS: Record<string, () => Promise<{ run: (argv: string[]) => Promise<number> }>> = {
  bench: () => import('./bench.ts'),
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
  const mod = await load();
  return mod.run(rest);
}
