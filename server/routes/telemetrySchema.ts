/**
 * TypeBox mirror of shared/telemetry.ts, used to validate each NDJSON line
 * posted to /api/ingest. Unknown extra fields are allowed (a newer target may
 * add some); the fields the dashboard reads are checked.
 */
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { TelemetryEvent } from '../../shared/telemetry.ts';
import { WatchdogStallReportSchema } from '../../shared/stallReport.ts';

const Base = { v: Type.Literal(1), ts: Type.Number(), model: Type.Optional(Type.String()) };
const Ids = Type.Array(Type.String({ maxLength: 512 }), { maxItems: 4096 });
const Details = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]));
// The report's contract lives in shared/ with the py-spy captures of the same family.
const Report = WatchdogStallReportSchema;

export const TelemetryEventSchema = Type.Union([
  Type.Object({
    ...Base,
    type: Type.Literal('c2w.op.begin'),
    workerId: Type.Integer(),
    opId: Type.Integer(),
    requestIds: Ids,
    batchSize: Type.Integer(),
  }),
  Type.Object({
    ...Base,
    type: Type.Literal('c2w.phase'),
    workerId: Type.Integer(),
    opId: Type.Integer(),
    requestIds: Ids,
    phase: Type.String(),
    details: Details,
  }),
  Type.Object({
    ...Base,
    type: Type.Literal('c2w.op.end'),
    workerId: Type.Integer(),
    opId: Type.Integer(),
    requestIds: Ids,
    durationMs: Type.Number(),
    ok: Type.Boolean(),
    error: Type.Optional(Type.String()),
  }),
  Type.Object({ ...Base, type: Type.Literal('watchdog.stall'), report: Report }),
  Type.Object({
    ...Base,
    type: Type.Literal('watchdog.recovered'),
    workerId: Type.Integer(),
    opId: Type.Integer(),
    requestIds: Ids,
    stalledS: Type.Number(),
  }),
  Type.Object({ ...Base, type: Type.Literal('worker.busy'), workerId: Type.Integer(), opId: Type.Integer() }),
  Type.Object({ ...Base, type: Type.Literal('worker.idle'), workerId: Type.Integer() }),
  Type.Object({
    ...Base,
    type: Type.Literal('stage.progress'),
    requestId: Type.String(),
    stage: Type.Union([Type.Literal('thinker'), Type.Literal('talker'), Type.Literal('code2wav')]),
    count: Type.Number(),
    done: Type.Optional(Type.Boolean()),
  }),
  Type.Object({ ...Base, type: Type.Literal('telemetry.dropped'), count: Type.Integer() }),
]);

const checks = new Map(TelemetryEventSchema.anyOf.map((s) => [s.properties.type.const as string, Compile(s)]));

/** Returns the event, or a message saying what is wrong with it. */
export function checkTelemetry(value: unknown): { ok: true; event: TelemetryEvent } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  const check = typeof type === 'string' ? checks.get(type) : undefined;
  if (!check) return { ok: false, message: `unknown type ${JSON.stringify(type)}` };
  if (check.Check(value)) return { ok: true, event: value as TelemetryEvent };
  const e = check.Errors(value)[0];
  return { ok: false, message: `${String(type)}: ${e?.instancePath || '/'} ${e?.message ?? 'invalid'}` };
}
