/** Child-process entry of serverProcess.ts: runs startSseServer with data-only rules. */
import { startSseServer } from './sseServer.ts';
import type { ServerRules } from './serverProcess.ts';

const rules = JSON.parse(process.argv[2]) as ServerRules;
const indexOf = (id: string): number => Number(id.split('-').pop());
const server = await startSseServer(
  (a) => (rules.first && indexOf(a.requestId) < (rules.firstN ?? 0) ? rules.first : rules.rest),
  { closeEach: rules.closeEach },
);
process.on('message', () => process.send!({ arrivals: server.arrivals.length, openSockets: server.openSockets }));
process.on('disconnect', () => process.exit(0));
process.send!({ url: server.url });
