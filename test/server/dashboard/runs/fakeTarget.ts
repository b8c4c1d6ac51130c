/**
 * A stand-in for `stallscope repro-server` (same argv and stdout contract):
 * every chat request hangs, and its only telemetry — a watchdog stall — is
 * held back until POST /admin/telemetry/flush, which answers only after the
 * dashboard acknowledged it. So a dashboard that stopped the target or ended
 * the run before flushing would lose the stall report.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'telemetry-url': { type: 'string' },
    port: { type: 'string' },
    fault: { type: 'string', multiple: true },
    workers: { type: 'string' },
    'max-batch': { type: 'string' },
    'watchdog-timeout-s': { type: 'string' },
    model: { type: 'string' },
    seed: { type: 'string' },
  },
});
process.stderr.write(
  `fake target args: faults=${(values.fault ?? []).join(' ')} watchdog=${values['watchdog-timeout-s']} workers=${values.workers}\n`,
);
const seen: string[] = [];

const server = createServer((req, res) => {
  if (req.url === '/admin/telemetry/flush') {
    const report = {
      model: 'fake',
      workerId: 0,
      opId: 1,
      requestIds: seen.slice(0, 2),
      phase: 'hift',
      details: { mel_frames: 7 },
      inPhaseS: 1,
      inOpS: 1,
      capturedAtMs: Date.now(),
      deadlineMs: Date.now() - 10,
      stack: [{ function: 'fakeBlock', file: 'fakeTarget.ts', line: 1, column: 1, language: 'js' }],
    };
    const line = JSON.stringify({ v: 1, ts: Date.now(), type: 'watchdog.stall', report });
    setTimeout(() => {
      fetch(values['telemetry-url']!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${line}\n`,
      })
        .then((r) => r.text())
        .then(
          () => res.end('{"flushed":1}'),
          () => {
            res.statusCode = 500;
            res.end();
          },
        );
    }, 100);
    return;
  }
  seen.push(String(req.headers['x-request-id']));
  req.resume(); // read the body, never answer: a hang
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `stallscope repro-server listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`,
  );
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
