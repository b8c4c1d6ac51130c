/**
 * GET /v1/realtime upgraded to a WebSocket: one Realtime session per
 * connection (realtime/session.ts). A `model` query that names another model
 * is refused as the chat route refuses it, with an `error` event and a close.
 * The upgrade's `OpenAI-Beta: realtime=v1` keeps the session on the beta
 * event names (realtime/dialect.ts).
 */
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { RealtimeSession, type RealtimeDeps } from '../realtime/session.ts';
import { errorEvent } from '../realtime/events.ts';
import { hasBetaHeader } from '../realtime/dialect.ts';

/**
 * Largest client frame the socket reads (past it ws closes with 1009); frames past limits.ts's per-event
 * cap and under this one are refused with an `error` event the client can read.
 */
export const REALTIME_MAX_PAYLOAD = 16 * 1024 * 1024;

export function registerRealtimeRoute(app: FastifyInstance, deps: RealtimeDeps): void {
  void app.register(websocket, { options: { maxPayload: REALTIME_MAX_PAYLOAD } });
  void app.register(async (scoped) => {
    scoped.get('/v1/realtime', { websocket: true }, (socket, request) => {
      const model = (request.query as Record<string, unknown>).model;
      if (typeof model === 'string' && model !== '' && model !== deps.model) {
        socket.send(JSON.stringify(errorEvent(`The model \`${model}\` does not exist.`, 'model_not_found')));
        socket.close(1008, 'unknown model');
        return;
      }
      new RealtimeSession(socket, deps, hasBetaHeader(request.headers));
    });
  });
}
