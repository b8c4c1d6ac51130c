/**
 * GET /v1/realtime upgraded to a WebSocket: one Realtime session per
 * connection (realtime/session.ts). A `model` query that names another model
 * is refused as the chat route refuses it, with an `error` event and a close.
 */
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { RealtimeSession, type RealtimeDeps } from '../realtime/session.ts';
import { errorEvent } from '../realtime/events.ts';

/** Largest client frame accepted: a 200 ms append is ~13 KB; anything near this is not a realtime client. */
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
      new RealtimeSession(socket, deps);
    });
  });
}
