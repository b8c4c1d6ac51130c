/**
 * Child process for the SIGKILL test: records a run through the real hub
 * and batched writer, prints the number of committed events after each
 * batch, and keeps going until it is killed.
 */
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { completedRequest, newRun, stallEvent } from '#test/helpers/sampleEvents.ts';

const store = new SqliteStore({ dataDir: process.argv[2], flushIntervalMs: 20 });
const hub = new Hub(store);
store.runs.insertRun(newRun('killed'));
hub.open('killed', null);
hub.append('killed', stallEvent('killed', 3));
let i = 0;
const origFlush = store.writer.flush.bind(store.writer);
store.writer.flush = () => {
  origFlush();
  process.stdout.write(`committed ${store.writer.stats.events} ${i}\n`);
};
setInterval(() => {
  for (let k = 0; k < 20; k++, i++) for (const e of completedRequest('killed', i)) hub.append('killed', e);
}, 5);
