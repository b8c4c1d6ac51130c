/**
 * Stop rules (`--stop-on RULE`, RunSpec `stopOn`; docs/design.md#stop-rules):
 * their syntax, their refusals and their meaning in words, stated once so the
 * dashboard's form, the CLI and the engine read a rule the same way. A rule
 * is the condition that stops the run; any rule tripping stops it exactly as
 * the fail-fast breaker does (`--omni-fail-fast-on-timeout` is `timeouts>=1`).
 *
 *   timeouts>=N               N structural timeouts
 *   errors>=N                 N requests ended failed (any reason but the stop itself)
 *   consecutive_errors>=N     N such requests in a row
 *   error_rate>X[,window=W][,min=M]
 *                             failed / ended over the last W ended requests (or the
 *                             whole run), once M have ended
 *   no_progress>=S            requests are in flight and none received a byte for S s
 *   KEY>X[,min=M]             a result key (the --threshold names) evaluated live,
 *                             once M requests completed; also >=, <, <=
 */
import { Type, type Static } from 'typebox';
import { StallscopeError } from '../errors.ts';
import { calculateMetrics, METRIC_SUFFIX, PERCENTILE_METRICS, percentileLabel } from '../metrics/index.ts';
import type { MetricOptions } from '../metrics/input.ts';

export const COUNT_RULES = ['timeouts', 'errors', 'consecutive_errors'] as const;
type CountKind = (typeof COUNT_RULES)[number];
export type LiveOp = '>' | '>=' | '<' | '<=';

export type StopRule =
  | { kind: CountKind; text: string; n: number }
  | { kind: 'error_rate'; text: string; op: '>' | '>='; rate: number; window: number | null; min: number }
  | { kind: 'no_progress'; text: string; seconds: number }
  | { kind: 'metric'; text: string; key: string; op: LiveOp; value: number; min: number };

export const STOP_RULE_KINDS = [...COUNT_RULES, 'error_rate', 'no_progress', 'metric'] as const;

/** What a run is, as far as its rules are concerned: its size and the metric keys it computes. */
export interface StopRuleContext {
  /** Requests in the run (a window or a count beyond it could never be reached). */
  numRequests: number;
  /** The result keys a live threshold may name (liveMetricKeys). */
  metricKeys: ReadonlySet<string>;
}

/** The most rules one run may have (the RunSpec's bound too). */
export const MAX_STOP_RULES = 16;
/** Requests named as a trip's evidence; the rest are counted in `omitted`. */
export const MAX_EVIDENCE = 64;
/**
 * The longest silence `no_progress` may wait for: a day. Every request in
 * flight ends by its own timeout (900 s by default, the legacy cap 6 h), and
 * an end is progress, so a longer silence can only be met by a request no
 * timer bounds; and it stays far inside what one timer can wait (durations.ts).
 */
export const MAX_NO_PROGRESS_S = 24 * 60 * 60;

const RULE = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(>=|<=|>|<|==|!=)\s*([^,\s]+)\s*((?:,[^,]*)*)$/;
// `\d+(?:\.\d*)?`, not `\d+\.?\d*`: the latter splits a run of digits every way before failing (quadratic).
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A refusal of one rule: CONFIG_INVALID on the `stopOn` field, the rule quoted. */
function refuse(text: string, why: string): never {
  throw new StallscopeError('CONFIG_INVALID', `stop rule '${text.trim()}': ${why}`, 'stopOn');
}

function num(text: string, s: string, what: string): number {
  if (!NUMBER.test(s)) refuse(text, `${what} '${s}' is not a number`);
  const v = Number(s);
  if (!Number.isFinite(v)) refuse(text, `${what} '${s}' is not a finite number`);
  return v;
}

/** A whole number of requests in 1..numRequests. */
function requests(text: string, s: string, what: string, ctx: StopRuleContext | null): number {
  const v = num(text, s, what);
  if (!Number.isInteger(v) || v < 1) refuse(text, `${what} must be a whole number ≥ 1 (got ${s})`);
  if (ctx && v > ctx.numRequests)
    refuse(text, `${what} ${v} is more than the run's ${ctx.numRequests} requests: it could never be reached`);
  return v;
}

function options(text: string, tail: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of tail.split(',').slice(1)) {
    const m = /^\s*([a-z_]+)\s*=\s*(\S+)\s*$/.exec(part);
    if (!m) refuse(text, `'${part.trim()}' is not KEY=VALUE (${allowed.join(', ') || 'no options'})`);
    if (!allowed.includes(m[1]))
      refuse(
        text,
        allowed.length ? `unknown option '${m[1]}' (known: ${allowed.join(', ')})` : `takes no option ('${m[1]}')`,
      );
    if (out.has(m[1])) refuse(text, `option '${m[1]}' is given twice`);
    out.set(m[1], m[2]);
  }
  return out;
}

function needOp(text: string, op: string, allowed: readonly string[], name: string): void {
  const words =
    allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed[0];
  if (!allowed.includes(op)) refuse(text, `${name} takes ${words} (got ${op})`);
}

/**
 * Parses one rule; with a context, also refuses what the run could never
 * reach (a count or window beyond its size) and metric names it does not
 * compute. Throws CONFIG_INVALID on the field `stopOn`.
 */
export function parseStopRule(text: string, ctx: StopRuleContext | null = null): StopRule {
  const m = RULE.exec(text);
  if (!m)
    refuse(
      text,
      'is not NAME OP NUMBER[,KEY=VALUE...] (e.g. errors>=3, error_rate>0.2,window=50, no_progress>=60s, p99_ttft_ms>2000,min=20)',
    );
  const [, name, op, value, tail] = m;
  if ((COUNT_RULES as readonly string[]).includes(name)) {
    needOp(text, op, ['>='], name);
    options(text, tail, []);
    const n = requests(text, value, 'the count', ctx);
    return { kind: name as CountKind, text: `${name}>=${n}`, n };
  }
  if (name === 'no_progress') return noProgressRule(text, op, value, tail);
  if (name === 'error_rate') return errorRateRule(text, op, value, tail, ctx);
  return metricRule(text, name, op, value, tail, ctx);
}

function noProgressRule(text: string, op: string, value: string, tail: string): StopRule {
  needOp(text, op, ['>='], 'no_progress');
  options(text, tail, []);
  const seconds = num(text, value.replace(/s$/, ''), 'the seconds');
  if (!(seconds > 0)) refuse(text, `the seconds must be > 0 (got ${value})`);
  if (seconds > MAX_NO_PROGRESS_S)
    refuse(
      text,
      `the seconds must be at most ${MAX_NO_PROGRESS_S} (24 h; got ${value}): every request ends by its timeout long before`,
    );
  return { kind: 'no_progress', text: `no_progress>=${seconds}s`, seconds };
}

function errorRateRule(text: string, op: string, value: string, tail: string, ctx: StopRuleContext | null): StopRule {
  needOp(text, op, ['>', '>='], 'error_rate');
  const o = options(text, tail, ['window', 'min']);
  const rate = num(text, value, 'the rate');
  if (op === '>' && !(rate >= 0 && rate < 1))
    refuse(text, `the rate must be a fraction in [0, 1) with >, e.g. 0.2 for 20% (got ${value})`);
  if (op === '>=' && !(rate > 0 && rate <= 1))
    refuse(text, `the rate must be a fraction in (0, 1] with >=, e.g. 0.2 for 20% (got ${value})`);
  const window = o.has('window') ? requests(text, o.get('window')!, 'the window', ctx) : null;
  const min = o.has('min') ? requests(text, o.get('min')!, 'min', ctx) : (window ?? 1);
  const parts = [`error_rate${op}${rate}`];
  if (window !== null) parts.push(`window=${window}`);
  if (o.has('min')) parts.push(`min=${min}`);
  return { kind: 'error_rate', text: parts.join(','), op: op as '>' | '>=', rate, window, min };
}

function metricRule(
  text: string,
  key: string,
  op: string,
  value: string,
  tail: string,
  ctx: StopRuleContext | null,
): StopRule {
  if (ctx && !ctx.metricKeys.has(key))
    refuse(
      text,
      `unknown metric '${key}': not one of the rules (${STOP_RULE_KINDS.slice(0, -1).join(', ')}) nor a result key ` +
        `this run computes (percentile keys follow --percentile-metrics and --metric-percentiles)`,
    );
  needOp(text, op, ['>', '>=', '<', '<='], key);
  const o = options(text, tail, ['min']);
  const v = num(text, value, 'the bound');
  const never = neverTrips(key, op as LiveOp, v, ctx);
  if (never) refuse(text, `can never trip: ${never}`);
  const min = o.has('min') ? requests(text, o.get('min')!, 'min', ctx) : 1;
  return {
    kind: 'metric',
    text: `${key}${op}${v}${o.has('min') ? `,min=${min}` : ''}`,
    key,
    op: op as LiveOp,
    value: v,
    min,
  };
}

/** Result keys that count requests: never more than the run has. */
const REQUEST_COUNTS = new Set(['completed', 'failed', 'max_concurrent_requests', 'max_concurrent_requests_exact']);

/**
 * Why `key OP v` can never hold, or null. Every live result key is a
 * duration, a count, a throughput, a ratio or a fraction: never below 0; a
 * fraction (`…_rate`) never above 1; a count of requests never above the
 * run's requests (with a context).
 */
function neverTrips(key: string, op: LiveOp, v: number, ctx: StopRuleContext | null): string | null {
  if ((op === '<' && v <= 0) || (op === '<=' && v < 0)) return `${key} is never below 0`;
  const high: [number, string] | null = /_rate$/.test(key)
    ? [1, 'it is a fraction of 0 to 1']
    : ctx && REQUEST_COUNTS.has(key)
      ? [ctx.numRequests, `it counts requests, and the run has ${ctx.numRequests}`]
      : null;
  if (high && ((op === '>' && v >= high[0]) || (op === '>=' && v > high[0])))
    return `${key} never exceeds ${high[0]} (${high[1]})`;
  return null;
}

/**
 * The result keys a live threshold may name: those `calculateMetrics` writes
 * for this run's percentile metrics, percentiles and goodput (the names
 * `--threshold` uses), but not the Seed-TTS keys, known only after the run.
 */
export function liveMetricKeys(o: Omit<MetricOptions, 'durationS'>): Set<string> {
  const keys = new Set(Object.keys(calculateMetrics([], { ...o, durationS: 0 })));
  const selected = new Set(o.percentileMetrics);
  for (const m of PERCENTILE_METRICS) {
    if (!selected.has(m)) continue;
    const suffix = METRIC_SUFFIX[m];
    keys.add(`mean_${m}${suffix}`);
    keys.add(`median_${m}${suffix}`);
    for (const p of o.metricPercentiles) keys.add(`p${percentileLabel(p)}_${m}${suffix}`);
  }
  return keys;
}

/** Every rule's refusal in order, for the engine's validation and the form (empty: all good). */
export function stopRuleIssues(rules: readonly unknown[], ctx: StopRuleContext): string[] {
  const out: string[] = [];
  if (rules.length > MAX_STOP_RULES) out.push(`at most ${MAX_STOP_RULES} stop rules (got ${rules.length})`);
  for (const r of rules) {
    if (typeof r !== 'string') {
      out.push(`stop rule ${JSON.stringify(r)} is not text`);
      continue;
    }
    try {
      parseStopRule(r, ctx);
    } catch (e) {
      out.push((e as Error).message.replace(/^invalid configuration: /, ''));
    }
  }
  return out;
}

/**
 * The rules a run applies: its `stopOn` and, with fail-fast, `timeouts>=1`
 * (unless a timeouts rule is already given: the lowest count trips first).
 */
export function effectiveStopRules(stopOn: readonly string[] | undefined, failFast: boolean): StopRule[] {
  const rules = (stopOn ?? []).map((r) => parseStopRule(r));
  if (failFast) rules.push({ kind: 'timeouts', text: 'timeouts>=1', n: 1 });
  return rules;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const pct = (x: number): string => `${Number((x * 100).toPrecision(3))}%`;
const OP_WORDS: Record<LiveOp, string> = { '>': 'exceeds', '>=': 'reaches', '<': 'falls below', '<=': 'falls to' };

/** A rule in words: "stop once 3 requests have failed". */
export function describeStopRule(r: StopRule): string {
  switch (r.kind) {
    case 'timeouts':
      return `stop at the ${ordinal(r.n)} structural timeout`;
    case 'errors':
      return `stop once ${plural(r.n, 'request has', 'requests have')} failed (any error, timeouts included)`;
    case 'consecutive_errors':
      return `stop once ${plural(r.n, 'request', 'requests in a row')} failed`;
    case 'error_rate': {
      const over = r.window === null ? 'of all ended requests' : `of the last ${r.window} ended requests`;
      return `stop when ${r.op === '>' ? 'more than' : 'at least'} ${pct(r.rate)} ${over} failed, once ${plural(r.min, 'request has', 'requests have')} ended`;
    }
    case 'no_progress':
      return `stop when requests are in flight and none has received a byte for ${r.seconds} s`;
    case 'metric':
      return `stop when ${r.key} ${OP_WORDS[r.op]} ${r.value}, evaluated during the run once ${plural(r.min, 'request has', 'requests have')} completed`;
  }
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

/** A request named as evidence of a trip. */
export const StopEvidenceSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  requestId: Type.String({ maxLength: 512 }),
});

/** Which stop rule stopped the run, when and on what evidence (result key `stopped_by`). */
export const StoppedBySchema = Type.Object({
  kind: Type.Enum(STOP_RULE_KINDS),
  /** The rule as it reads canonically, e.g. `no_progress>=60s`. */
  rule: Type.String({ maxLength: 256 }),
  /** Seconds from the run clock's start to the trip. */
  atS: Type.Number(),
  /**
   * What the rule measured when it tripped: the count, the rate, the seconds
   * without a byte, the metric's value.
   */
  value: Type.Number(),
  /** The requests the value was measured over (the rate's window, the completed requests of a metric). */
  over: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The requests that are the evidence (the failed, the timed-out, the silent in flight), at most MAX_EVIDENCE. */
  requests: Type.Array(StopEvidenceSchema, { maxItems: MAX_EVIDENCE }),
  /** Evidence requests beyond MAX_EVIDENCE, counted only. */
  omitted: Type.Integer({ minimum: 0 }),
});
export type StoppedBy = Static<typeof StoppedBySchema>;

/** A measured value as the reasons print metrics: whole numbers as they are, others to two decimals. */
function metricText(v: number): string {
  return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : v.toFixed(2);
}

/** "#1, #3, #5" (and "and 12 more"). */
function evidenceText(s: StoppedBy): string {
  const named = s.requests.map((r) => `#${r.index}`).join(', ');
  return named + (s.omitted > 0 ? ` and ${s.omitted} more` : '');
}

/**
 * What the trip measured, in words: "3 requests failed (#1, #3, #5)";
 * without `named`, the requests are left out (a page links them instead).
 */
export function tripEvidenceText(s: StoppedBy, named = true): string {
  const ev = named && s.requests.length ? ` (${evidenceText(s)})` : '';
  switch (s.kind) {
    case 'timeouts':
      return `${plural(s.value, 'request')} timed out${ev}`;
    case 'errors':
      return `${plural(s.value, 'request')} failed${ev}`;
    case 'consecutive_errors':
      return `${plural(s.value, 'request')} in a row failed${ev}`;
    case 'error_rate':
      return `${pct(s.value)} of ${plural(s.over ?? 0, 'ended request')} failed${ev}`;
    case 'no_progress':
      return `${plural(s.requests.length + s.omitted, 'request')} in flight${ev}, none received a byte for ${s.value.toFixed(1)} s`;
    case 'metric': {
      const key = s.rule.split(/[<>=]/)[0];
      return `${key} was ${metricText(s.value)} after ${plural(s.over ?? 0, 'completed request')}`;
    }
  }
}

/** The whole trip in one sentence: "the stop rule errors>=3 stopped the run at 1.20 s: 3 requests failed (#1, #3, #5)". */
export function tripText(s: StoppedBy): string {
  return `the stop rule ${s.rule} stopped the run at ${s.atS.toFixed(2)} s: ${tripEvidenceText(s)}`;
}
