/**
 * The names older reporters and older stores use for what is named otherwise
 * now, mapped to today's names: the one place they are known
 * (docs/design.md#legacy-names). Protocol 3 and before called an unsent
 * request's event `request.not_dispatched`, an unsent range's
 * `requests.not_dispatched`, the counts' field `notDispatched`, and the
 * summary's "a stop rule tripped the breaker" `failFastTripped`. What a
 * `bench --report-to` of that age posts, and what a store it wrote holds, is
 * read through here, so every reader sees one vocabulary. The result keys
 * (`not_dispatched_requests`, `fail_fast_tripped`) and the request status
 * `not_dispatched` are vLLM-compatible names and were never renamed.
 */
import type { RunCounts } from '../types.ts';

/** What carries counts: a run summary, a run's state (protocol.ts; structural, so this module imports no event schema). */
type WithCounts = { counts?: unknown } | null | undefined;

/** Event types renamed in protocol 4: old → new (a Map: a posted `type` is never looked up on a prototype). */
const EVENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['request.not_dispatched', 'request.unsent'],
  ['requests.not_dispatched', 'requests.unsent'],
]);

/** A stored event's JSON may need renaming only when it holds one of these (the live path skips the rest unparsed). */
const OLD_IN_JSON = /\.not_dispatched"|"notDispatched"|"failFastTripped"/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Counts under today's names: `notDispatched` → `unsent` (the same object when nothing is old). */
export function countsWithNewNames<C extends Partial<RunCounts> | null | undefined>(c: C): C {
  if (!isObj(c) || !('notDispatched' in c)) return c;
  const { notDispatched, ...rest } = c as Obj;
  return { ...rest, unsent: rest.unsent ?? notDispatched } as C;
}

/** A run summary under today's names: its counts, and `failFastTripped` → `breakerTripped`. */
export function summaryWithNewNames<S extends WithCounts>(s: S): S {
  if (!isObj(s)) return s;
  const counts = countsWithNewNames(s.counts as Partial<RunCounts> | undefined);
  if (counts === s.counts && !('failFastTripped' in s)) return s;
  const { failFastTripped, ...rest } = s as Obj;
  const tripped = 'failFastTripped' in s ? { breakerTripped: rest.breakerTripped ?? failFastTripped } : {};
  return { ...rest, ...tripped, counts } as S;
}

/** A run's stored state under today's names (its counts). */
export function stateWithNewNames<S extends WithCounts>(s: S): S {
  if (!isObj(s)) return s;
  const counts = countsWithNewNames(s.counts as Partial<RunCounts> | undefined);
  return counts === s.counts ? s : { ...s, counts };
}

/**
 * An event as an older reporter posts it or an older store holds it, under
 * today's names; anything else is returned as is (the same value). Unchecked:
 * the protocol's schemas check the result.
 */
export function eventWithNewNames(e: unknown): unknown {
  if (!isObj(e) || typeof e.type !== 'string') return e;
  const type = EVENT_TYPES.get(e.type);
  if (type) return { ...e, type };
  if (e.type !== 'run.finished' || !isObj(e.summary)) return e;
  const summary = summaryWithNewNames(e.summary);
  return summary === e.summary ? e : { ...e, summary };
}

/** A stored event's JSON under today's names: the same string unless it holds an old name. */
export function storedEventWithNewNames(json: string): string {
  if (!OLD_IN_JSON.test(json)) return json;
  const e: unknown = JSON.parse(json);
  const renamed = eventWithNewNames(e);
  return renamed === e ? json : JSON.stringify(renamed);
}
