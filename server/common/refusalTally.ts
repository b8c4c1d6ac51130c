/**
 * A sender's account of what the dashboard did not store (docs/design.md#loud-drops):
 * each refusal cause (a status and the dashboard's error code, or "unreachable")
 * and each silent drop the dashboard reported in a 200 (events it accepted but
 * joined to no run, lines it rejected) is printed once, when first seen, with
 * the count of events it cost; later posts with the same cause are only
 * counted, and `close()` prints the totals. A refused telemetry post repeats
 * for as long as the server runs: one line per post would bury everything else.
 */
import { redactSecrets } from '../../shared/redact.ts';

/** Why one post was not stored: the HTTP status (0 when none came back) and the dashboard's `{code, message}`. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** The dashboard's error reply `{code, message}` read from a refused post's body; its first 200 bytes when not one. */
export function readRefusal(status: number, body: string): Refusal {
  try {
    const j = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof j.code === 'string')
      return { status, code: j.code, message: typeof j.message === 'string' ? j.message : '' };
  } catch {
    /* not the dashboard's JSON: a proxy's page, say */
  }
  return { status, code: `HTTP ${status}`, message: body.slice(0, 200) };
}

/** A post that never got a status: the connection's error code (ECONNREFUSED, a timeout). */
export function unreachable(e: unknown): Refusal {
  const err = e as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  // fetch says "fetch failed" and puts the reason (ECONNREFUSED, a DNS failure) in its cause.
  const message = (err.message === 'fetch failed' ? err.cause?.message : err.message) ?? String(e);
  const code = err.cause?.code ?? err.code;
  return { status: 0, code: 'unreachable', message: code && !message.includes(code) ? `${code}: ${message}` : message };
}

interface Cause {
  status: number;
  text: string;
  posts: number;
  events: number;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export class RefusalTally {
  private readonly causes = new Map<string, Cause>();
  private unjoinedEvents = 0;
  private unjoinedPosts = 0;
  private rejectedEvents = 0;

  /**
   * `who` starts each line (`telemetry`, `stallscope: --report-to URL`); `noTokenHint` is said of a 401 when the
   * sender had no token to send (where to put one), so the line names the fix rather than the symptom; `then`
   * ends the first line of a cause (what the sender does next).
   */
  constructor(
    private readonly o: {
      who: string;
      log: (line: string) => void;
      hasToken: boolean;
      noTokenHint: string;
      then?: string;
    },
  ) {}

  /**
   * One post not stored, costing `events` events. `posts` is 0 for events dropped without a post after an earlier
   * refusal for this cause; `what` names what was refused when it was not events (the run's creation).
   */
  refused(r: Refusal, events: number, o: { posts?: number; what?: string } = {}): void {
    const key = `${r.status} ${r.code}`;
    let c = this.causes.get(key);
    if (!c) {
      c = { text: this.describe(r), posts: 0, events: 0, status: r.status };
      this.causes.set(key, c);
      const what = o.what ?? plural(events, 'event');
      const head = r.status ? `the dashboard refused ${what}` : `${what} could not be delivered`;
      this.o.log(`${this.o.who}: ${head}: ${c.text}${this.o.then ? `; ${this.o.then}` : ''}`);
    }
    c.posts += o.posts ?? 1;
    c.events += events;
  }

  /** A 200 from /api/ingest that says some events joined no run (`unjoined`) or were rejected line by line. */
  accepted(reply: { unjoined?: number; rejected?: number; errors?: { line: number; message: string }[] }): void {
    const unjoined = reply.unjoined ?? 0;
    if (unjoined > 0) {
      if (this.unjoinedPosts === 0)
        this.o.log(
          `${this.o.who}: the dashboard took ${plural(unjoined, 'event')} but joined them to no run (unjoined): ` +
            'no live run holds their request ids and the post named no runId',
        );
      this.unjoinedPosts++;
      this.unjoinedEvents += unjoined;
    }
    const rejected = reply.rejected ?? 0;
    if (rejected > 0) {
      if (this.rejectedEvents === 0) {
        const first = reply.errors?.[0];
        const why = first ? ` (line ${first.line}: ${this.clean(first.message)})` : '';
        this.o.log(`${this.o.who}: the dashboard rejected ${plural(rejected, 'event')}${why}`);
      }
      this.rejectedEvents += rejected;
    }
  }

  /** Events lost so far, every cause counted. */
  get lost(): number {
    let n = this.unjoinedEvents + this.rejectedEvents;
    for (const c of this.causes.values()) n += c.events;
    return n;
  }

  /** The totals, once, when the sender closes; nothing when everything was stored. */
  close(): void {
    const refused = [...this.causes.values()];
    if (refused.length) {
      const total = refused.reduce((n, c) => n + c.events, 0);
      const each = refused.map(
        (c) => `${c.text} ×${plural(c.posts, 'post')}${refused.length > 1 ? ` (${plural(c.events, 'event')})` : ''}`,
      );
      const how = refused.every((c) => c.status > 0) ? 'refused by' : 'not delivered to';
      this.o.log(`${this.o.who}: ${plural(total, 'event')} ${how} the dashboard: ${each.join('; ')}`);
    }
    if (this.unjoinedEvents)
      this.o.log(
        `${this.o.who}: ${plural(this.unjoinedEvents, 'event')} unjoined by the dashboard ×${plural(this.unjoinedPosts, 'post')}`,
      );
    if (this.rejectedEvents)
      this.o.log(`${this.o.who}: ${plural(this.rejectedEvents, 'event')} rejected by the dashboard`);
  }

  private describe(r: Refusal): string {
    const head = r.status ? `${r.status} ${r.code}` : r.code;
    const why =
      r.status === 401 && !this.o.hasToken ? `no token was sent: ${this.o.noTokenHint}` : this.clean(r.message);
    return why ? `${head} (${why})` : head;
  }

  /** One line, at most 200 characters, without secrets: it is the dashboard's text, printed here. */
  private clean(s: string): string {
    return redactSecrets(s.replace(/\s+/g, ' ').trim().slice(0, 200));
  }
}
