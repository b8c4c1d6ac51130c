/**
 * The loopback SSE server in a child process, so a benchmark measures the
 * client without the server's work on the same event loop. The behaviour is
 * data: requests whose x-request-id ends in an index < `firstN` get `first`,
 * all others `rest`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Behaviour } from './sseServer.ts';

export interface ServerRules {
  firstN?: number;
  first?: Behaviour;
  rest: Behaviour;
  /** Close every connection after its response (a new connection per request). */
  closeEach?: boolean;
}

export interface ServerProcess {
  url: string;
  /** Asks the child for its counters. */
  stats(): Promise<{ arrivals: number; openSockets: number }>;
  close(): Promise<void>;
}

export async function startServerProcess(rules: ServerRules): Promise<ServerProcess> {
  const entry = fileURLToPath(new URL('./serverProcessEntry.ts', import.meta.url));
  const child: ChildProcess = fork(entry, [JSON.stringify(rules)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending: Array<(m: { arrivals: number; openSockets: number }) => void> = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m: { url?: string; arrivals?: number; openSockets?: number }) => {
      if (m.url) resolve(m.url);
      else pending.shift()?.(m as { arrivals: number; openSockets: number });
    });
  });
  return {
    url,
    stats() {
      return new Promise((resolve) => {
        pending.push(resolve);
        child.send('stats');
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
