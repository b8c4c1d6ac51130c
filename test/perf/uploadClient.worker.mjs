// The import's uploader in its own thread (as curl or a browser would be its own process) for
// dashboardHardening.bench.ts: encoding and sending 28 MB is the client's work, which must not stall the
// dashboard's event loop the bench measures. Gets the body, says ready, posts it on `go`, answers its status.
import { parentPort, workerData } from 'node:worker_threads';

const { url, body } = workerData;
parentPort.once('message', async () => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await r.arrayBuffer();
  parentPort.postMessage({ type: 'done', status: r.status });
});
parentPort.postMessage({ type: 'ready' });
