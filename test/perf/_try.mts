import { startMatrixServer, type MatrixCase } from '../fixtures/servers/matrix.ts';
import { breakerRun, lastCloseAfterTrip, type DispatchMode } from '../helpers/breakerRun.ts';
const [c, mode, ka, runs] = process.argv.slice(2);
const server = await startMatrixServer(c as MatrixCase);
let hung = 0;
for (let i = 0; i < Number(runs ?? 3); i++) {
  const t0 = Date.now();
  const r = await breakerRun({ server, tag: `x${Date.now()}${i}`, keepAlive: ka === 'ka', dispatch: mode as DispatchMode,
    hangFrom: 30, numPrompts: 200, timeoutS: 1, killAfterS: 10 });
  if (r.killed) hung++;
  console.log(JSON.stringify({ code: r.code, killed: r.killed, wall: Date.now() - t0, tripToExit: r.tripAtMs ? r.exitAtMs - r.tripAtMs : null,
    lastClose: lastCloseAfterTrip(r), conns: r.conns.length, forced: r.result?.cleanup_forced_sockets, mode: r.result?.connection_mode }));
}
console.log(`HUNG ${hung}`);
await server.close();
