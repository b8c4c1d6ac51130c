/**
 * Team dashboard load (`npm run bench teamDashboard`; docs/design.md#team-dashboard): N `stallscope bench
 * --report-to` processes at once (default 32 × 1,088 requests with audio at concurrency 10, as a nightly fleet
 * reports) against the reproduction server, reporting to one dashboard — on PostgreSQL (a throwaway cluster), then
 * on SQLite for comparison. Prints the ingest latency (POST /api/runs/:id/events, p50/p99/max) and the dashboard's
 * event-loop delay, and checks every event stored exactly once: each run's seqs are 1..last with none missing, its
 * request rows and completed count equal the CLI's own result file. Smaller: STALLSCOPE_BENCH_REPORTERS=4
 * STALLSCOPE_BENCH_REQUESTS=200.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '#server/dashboard/app.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { REPO } from '../helpers/benchChild.ts';

const REPORTERS = Number(process.env.STALLSCOPE_BENCH_REPORTERS ?? 32);
const REQUESTS = Number(process.env.STALLSCOPE_BENCH_REQUESTS ?? 1088);
const BIN = join(REPO, 'bin/stallscope.js');

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

async function fleet(label: string, opts: { dataDir: string | null; database: string | null }, target: string) {
  const app = await buildApp({ ...opts, logger: false });
  const ingestMs: number[] = [];
  app.addHook('onResponse', async (req, reply) => {
    if (req.method === 'POST' && req.url.endsWith('/events')) ingestMs.push(reply.elapsedTime);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-fleet-'));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: REPORTERS }, (_, k) =>
      run([
        'bench',
        ...['--base-url', target, '--endpoint', '/v1/chat/completions', '--model', 'openbmb/MiniCPM-o-4_5'],
        ...['--dataset-name', 'random', '--num-prompts', String(REQUESTS), '--max-concurrency', '10'],
        ...['--request-rate', 'inf', '--num-warmups', '0', '--percentile-metrics', 'ttft,e2el,audio_ttfp'],
        ...['--extra-body', '{"modalities":["text","audio"]}', '--save-result', '--result-dir', dir],
        ...['--result-filename', `node-${k}.json`, '--metadata', `node=node-${k}`, '--report-to', url],
      ]),
    ),
  );
  const s = (performance.now() - t0) / 1000;
  loop.disable();
  let exact = 0;
  const problems: string[] = [];
  for (let k = 0; k < REPORTERS; k++) {
    if (results[k].code !== 0) problems.push(`node-${k}: exit ${results[k].code}: ${results[k].out.slice(-300)}`);
    const file = JSON.parse(readFileSync(join(dir, `node-${k}.json`), 'utf8')) as { completed: number; failed: number };
    const [listed] = (await app.store.list({ limit: 2, offset: 0, metadata: [['node', `node-${k}`]] })).runs;
    const run = listed && (await app.store.get(listed.id));
    const events = run ? await app.store.eventsAfter(run.id, 0, 10_000_000) : [];
    const rows = run ? (await app.store.requests(run.id, 0, 1)).total : 0;
    const contiguous = events.every((e, i) => e.seq === i + 1) && events.length === run?.lastSeq;
    if (run && contiguous && rows === file.completed + file.failed && run.counts.completed === file.completed) exact++;
    else
      problems.push(
        `node-${k}: ${run ? `${events.length} events to seq ${run.lastSeq}, ${rows} rows, ${run.counts.completed} completed` : 'no run'} vs file ${file.completed}+${file.failed}`,
      );
  }
  console.log(
    `${label}: ${REPORTERS} reporters × ${REQUESTS} requests in ${s.toFixed(1)} s; ingest p50 ${pct(ingestMs, 50).toFixed(1)} ms, p99 ${pct(ingestMs, 99).toFixed(1)} ms, max ${Math.max(0, ...ingestMs).toFixed(1)} ms over ${ingestMs.length} batches; event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms; runs stored exactly once ${exact}/${REPORTERS} ${exact === REPORTERS ? 'OK' : 'MISSED'}`,
  );
  for (const p of problems.slice(0, 5)) console.log(`  ${p}`);
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  if (exact !== REPORTERS) process.exitCode = 1;
}

const reproPort = await freePort();
const repro = spawn(process.execPath, [BIN, 'repro-server', '--port', String(reproPort)], {
  cwd: REPO,
  stdio: 'ignore',
});
const target = `http://127.0.0.1:${reproPort}`;
for (let i = 0; i < 100; i++) {
  if (
    await fetch(`${target}/health`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 100));
}
const cluster = await startPostgres();
try {
  await fleet('PostgreSQL', { dataDir: null, database: await cluster.freshDatabase() }, target);
  const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-fleet-sqlite-'));
  await fleet('SQLite', { dataDir, database: null }, target);
  rmSync(dataDir, { recursive: true, force: true });
} finally {
  cluster.destroy();
  repro.kill('SIGTERM');
}
