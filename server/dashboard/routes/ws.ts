/**
 * GET /ws: the live stream. Each connection is one ClientSession (snapshot,
 * then per-run numbered deltas on subscribe); the security hooks have
 * already checked Host, Origin and token before the upgrade. A stream opened
 * with a stored token is closed when that token is revoked.
 */
import type { FastifyInstance } from 'fastify';
import { ClientSession, type SessionOptions } from '../hub/clientSession.ts';

export function wsRoutes(opts: SessionOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/ws', { websocket: true }, (socket, req) => {
      const session = new ClientSession(
        app.hub,
        { send: (s) => socket.send(s), bufferedAmount: () => socket.bufferedAmount },
        opts,
      );
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary && data.length <= 64 * 1024) session.handle(data.toString('utf8'));
      });
      const tokenId = req.caller?.tokenId;
      // 4401: the application's own close code (4000-4999) for "your token was revoked".
      const forget = tokenId ? app.tokens.onRevoke(tokenId, () => socket.close(4401, 'token revoked')) : () => {};
      socket.on('close', () => {
        forget();
        session.close();
      });
      socket.on('error', () => session.close());
    });
  };
}
