/**
 * Checks what clients post against the protocol's own schemas
 * (shared/protocol/protocol.ts for engine events, shared/protocol/telemetry.ts for telemetry):
 * the discriminant picks the variant, and the first error names the field, so a
 * refusal says exactly what is wrong ("outcome.status must be ..."). An event the schema accepts is refused
 * still when it holds what no database can store (shared/storable.ts): a telemetry line alone, a reported batch
 * whole — never one row failing the writer's batch of other runs' events.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { BENCH_EVENT_VARIANTS, type BenchEvent } from '../../../shared/protocol/protocol.ts';
import { TELEMETRY_VARIANTS, type TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { pointerToField } from '../../../shared/config/runSpec.ts';
import { findUnstorable } from '../../../shared/storage/storable.ts';

export type Checked<T> = { ok: true; event: T } | { ok: false; field: string; message: string };

type Validator = ReturnType<typeof Compile>;

function compileVariants(variants: ReadonlyMap<string, TSchema>): Map<string, Validator> {
  return new Map([...variants].map(([type, s]) => [type, Compile(s)]));
}

function checker<T>(variants: ReadonlyMap<string, TSchema>): (value: unknown) => Checked<T> {
  const checks = compileVariants(variants);
  const known = [...variants.keys()].join(', ');
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, field: '', message: 'is not a JSON object' };
    const type = (value as { type?: unknown }).type;
    const check = typeof type === 'string' ? checks.get(type) : undefined;
    if (!check) {
      return {
        ok: false,
        field: 'type',
        message: `unknown type ${JSON.stringify(type)?.slice(0, 80) ?? 'undefined'} (one of ${known})`,
      };
    }
    if (check.Check(value)) {
      const bad = findUnstorable(value);
      if (!bad) return { ok: true, event: value as T };
      const field = pointerToField(bad.pointer);
      return { ok: false, field, message: `${String(type)}: ${field} ${bad.message}` };
    }
    const e = check.Errors(value)[0];
    const params = (e?.params ?? {}) as { requiredProperties?: string[] };
    const at = pointerToField(e?.instancePath ?? '');
    const missing = e?.keyword === 'required' ? params.requiredProperties?.[0] : undefined;
    const field = [at, missing].filter(Boolean).join('.');
    return {
      ok: false,
      field,
      message: `${String(type)}: ${field || '(event)'} ${missing ? 'is required' : (e?.message ?? 'is invalid')}`,
    };
  };
}

/** One engine event as `POST /api/runs/:id/events` receives it. */
export const checkBenchEvent: (value: unknown) => Checked<BenchEvent> = checker<BenchEvent>(BENCH_EVENT_VARIANTS);

/** One telemetry line as `POST /api/ingest` receives it. */
export const checkTelemetry: (value: unknown) => Checked<TelemetryEvent> = checker<TelemetryEvent>(TELEMETRY_VARIANTS);
