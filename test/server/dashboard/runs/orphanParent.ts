/** Child for the orphan test: launches a real embedded repro server (its first op hangs), prints its pid, waits to be killed. */
import { launchEmbeddedRepro } from '#server/dashboard/runs/embeddedRepro.ts';

const t = await launchEmbeddedRepro({
  spec: {
    kind: 'embedded',
    faults: [{ phase: 'hift', kind: 'spin', after: 1 }],
    watchdogTimeoutS: 0,
    workers: 1,
    maxBatch: 4,
  },
  model: 'm',
  telemetryUrl: 'http://127.0.0.1:9/api/ingest',
});
process.stdout.write(`target ${t.pid} ${t.baseUrl}\n`);
setInterval(() => {}, 1000);
