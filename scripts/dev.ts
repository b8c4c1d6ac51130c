/**
 * `npm run dev [-- <command> <options>]` (default: `serve`): the CLI from the
 * TypeScript sources under `tsx watch`, restarted on every change. The threads
 * and processes it starts (Code2Wav workers, the embedded repro server) run from
 * dist/, so each start first recompiles dist/server when stale. Pair it with
 * `npx vite` (web/ with hot reload, proxied to this server on port 7077).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../server/cli/main.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed', '--server-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const argv = process.argv.slice(2);
const code = await main(argv.length ? argv : ['serve']);
if (typeof code === 'number') process.exitCode = code;
