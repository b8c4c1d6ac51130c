/**
 * GET /ws: the live stream. Each connection is one ClientSession (snapshot,
 * then per-run numbered deltas on subscribe); the security hooks have
 * already checked Host, Origin and token before the upgrade.
 */
import type { FastifyInstance } from 'fastify';
import { ClientSession, type SessionOptions } from '../hub/clientSession.ts';

export function wsRoutes(opts: SessionOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/ws', { websocket: true }, (socket) => {
      const session = new ClientSession(
        app.hub,
        { send: (s) => socket.send(s), bufferedAmount: () => socket.bufferedAmount },
        opts,
      );
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary && data.length <= 64 * 1024) session.handle(data.toString('utf8'));
      });
      socket.on('close', () => session.close());
      socket.on('error', () => session.close());
    });
  };
}
