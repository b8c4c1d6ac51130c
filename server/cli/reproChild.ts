// Entry of an embedded repro server child: `stallscope repro-server` plus one duty — when the dashboard
// dies, even by SIGKILL (no exit handler runs), this process's stdin pipe closes; it then stops as on
// SIGTERM, so a target with a hung (or spinning) Code2Wav worker never outlives its dashboard.
// Always started compiled (dist/server/cli/reproChild.js): no TypeScript loader in the child.
import { main } from './main.ts';

process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.on('error', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
process.stdin.unref(); // watching the pipe must not keep the process alive after the server closed
const code = await main(['repro-server', ...process.argv.slice(2)]);
if (typeof code === 'number') process.exitCode = code;
