/** `stallscope bench` subscribes to the run's events only when something reads them (bar or reporter). */
import { describe, expect, it } from 'vitest';
import { eventSubscriber } from '#server/cli/bench.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

const e = { type: 'run.warning', message: 'm', t: 0 } as BenchEvent;

describe('the CLI event subscriber', () => {
  it('is none with neither a progress bar nor a reporter: the engine then builds no event', () => {
    expect(eventSubscriber(null, null)).toBeUndefined();
  });

  it('hands every event to the bar and the reporter that are there', () => {
    const bar: BenchEvent[] = [];
    const sent: BenchEvent[] = [];
    eventSubscriber({ onEvent: (x) => bar.push(x) }, null)?.(e);
    expect(bar).toEqual([e]);
    eventSubscriber(null, { onEvent: (x) => sent.push(x) })?.(e);
    expect(sent).toEqual([e]);
    eventSubscriber({ onEvent: (x) => bar.push(x) }, { onEvent: (x) => sent.push(x) })?.(e);
    expect([bar.length, sent.length]).toEqual([2, 2]);
  });
});
