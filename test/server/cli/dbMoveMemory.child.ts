/**
 * One `stallscope db export` in a process of its own, after a data folder with one finished run whose result is
 * `MB` MiB is made (the move is measured by dbMoveMemory.test.ts in a fresh process, apart from the making).
 */
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { newRun } from '#test/helpers/sampleEvents.ts';

const [from, mbText] = process.argv.slice(2);
const mb = Number(mbText);
const s = new SqliteStore({ dataDir: from });
{
  // One MiB strings, so the result is `mb` MiB of JSON; made in a scope so it can be collected before the move.
  const result = { generated_texts: Array.from({ length: mb }, (_, i) => `${'x'.repeat(1 << 20)}${i}`) };
  await s.runWrites.insertWhole(newRun('big-1', { status: 'finished' }), { verdict: 'passed', finishedAtMs: 1 });
  await s.runWrites.update('big-1', { result });
}
await s.close();
process.stdout.write(`${JSON.stringify({ made: mb })}\n`);
