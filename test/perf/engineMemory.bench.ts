/**
 * What the engine holds per request of a huge run (`npm run bench engine`,
 * or `npm run bench engineMemory`): 1,000,000 requests ended through the
 * engine's own request endings (server/engine/dispatch/requestEndings.ts),
 * whose records and per-request arrays are what finalize, the result and the
 * metrics read. Each finished record is filled by the engine's stream parser
 * from the bytes the benchmarks' loopback server sends (2 text tokens, as in
 * the dashboard benchmark), on a clock that moves, so no two records share
 * their numbers. The unsent figure is a stopped run's queue of
 * 1,000,000 requests reported unsent.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { newRecord } from '#server/engine/records/record.ts';
import { StreamParser } from '#server/engine/transport/reading/streamParser.ts';
import { RequestEndings } from '#server/engine/dispatch/requestEndings.ts';
import { RunEvents } from '#server/engine/records/events.ts';
import type { AttemptTarget } from '#server/engine/transport/http/attempt.ts';
import { fullStream } from '../helpers/sse.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
};
const N = Number(process.env.STALLSCOPE_MEM_REQUESTS ?? 1_000_000);
const FINISHED_TARGET = 120;
const verdict = (ok: boolean): string => (ok ? 'OK' : 'MISSED');
const fmt = (n: number): string => n.toLocaleString('en');

let clock = 1000;
const now = (): number => clock;
const target = { now } as unknown as AttemptTarget;
const id = (i: number): string => `bench-${i}`;
const promptLen = (i: number): number => 30 + (i % 5);

function finished(): number {
  const body = new TextEncoder().encode(fullStream(2).join(''));
  const stop = new AbortController();
  const before = heap();
  const endings = new RequestEndings(N, new RunEvents(undefined), target, id, promptLen, stop.signal);
  for (let i = 0; i < N; i++) {
    const record = newRecord(promptLen(i), (clock += 0.000_137));
    record.attempts = 1;
    const parser = new StreamParser(record, { now });
    clock += 0.003_1 + (i % 7) * 0.000_01;
    parser.push(body);
    clock += 0.000_9;
    parser.end();
    endings.table.setSentT(i, record.startTime * 1000);
    endings.finish(i, record, 'completed');
  }
  const per = (heap() - before) / N;
  // Held until measured, as finalize holds them.
  if (endings.table.length !== N) throw new Error('lost requests');
  return per;
}

function neverSent(): number {
  const stop = new AbortController();
  const before = heap();
  const endings = new RequestEndings(N, new RunEvents(undefined), target, id, promptLen, stop.signal);
  stop.abort();
  endings.unsentFrom(0);
  const per = (heap() - before) / N;
  if (endings.table.statusAt(N - 1) !== 'not_dispatched') throw new Error('lost requests');
  return per;
}

const f = finished();
console.log(
  `engine memory per finished request, ${fmt(N)} requests (2 text tokens each; records, statuses, stop causes, sent times): ${f.toFixed(0)} B (target ≤ ${FINISHED_TARGET} B) ${verdict(f <= FINISHED_TARGET)}`,
);
const u = neverSent();
console.log(`engine memory per unsent request, ${fmt(N)} requests of a stopped run: ${u.toFixed(1)} B`);
