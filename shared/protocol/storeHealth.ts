/**
 * The store's health as /api/health and the live stream report it
 * (docs/design.md#outage-buffer): which database, whether it answers, and how
 * many accepted events wait in the dashboard's outage buffer for it.
 */
import { Type, type Static } from 'typebox';

export const StoreHealthSchema = Type.Object({
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  /** False while the database cannot be written (the outage buffer holds what arrives). */
  connected: Type.Boolean(),
  /** Accepted events not yet written. */
  buffered: Type.Integer({ minimum: 0 }),
  /** The most events the outage buffer holds; past it, reports are refused with 503. */
  capacity: Type.Integer({ minimum: 0 }),
  /** Since when (epoch ms) the database has not answered; null while it does. */
  downSinceMs: Type.Union([Type.Number(), Type.Null()]),
  /** The last failure, one line; null while connected. */
  lastError: Type.Union([Type.String(), Type.Null()]),
});
export type StoreHealth = Static<typeof StoreHealthSchema>;
