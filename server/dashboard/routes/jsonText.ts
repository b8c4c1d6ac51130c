/**
 * Sends JSON already serialized (stored rows and events spliced together, or a board serialized off the event
 * loop, not parsed and re-encoded): the text has the route's reply shape, which the typed reply cannot see in a
 * string, so it is sent through the plain reply type.
 */
import type { FastifyReply } from 'fastify';

export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply
    .type('application/json')
    .serializer((s) => s as string)
    .send(json);
}
