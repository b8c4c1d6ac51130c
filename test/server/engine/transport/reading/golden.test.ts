/**
 * Golden replay: every recorded transcript in test/fixtures/golden goes
 * through StreamParser with the recorded read boundaries and scripted clock,
 * and every per-request field must equal what vLLM-Omni's own client produced
 * (1e-9 relative for floats). Exceptions follow docs/design.md#stream and the
 * fixture README (test/fixtures/golden/README.md#behaviour-these-files-pin-july-code-as-executed,
 * items 1 and 9): case 5 (an in-stream error now fails the request), case 11
 * (`data:` without a space is accepted with a warning), case 8 (HTTP 500 is
 * the engine's HTTP layer; simulated here) and case 12 (retries; simulated).
 */
import { describe, expect, it } from 'vitest';
import { markFailed, newRecord } from '#server/engine/records/record.ts';
import {
  ManualClock,
  asGoldenFields,
  caseNumbers,
  close,
  loadCase,
  replayAttempt,
  type GoldenExpected,
  type GoldenFields,
} from '#test/fixtures/golden-helpers/golden.ts';

function expectFields(actual: GoldenFields, expected: GoldenFields, skip: (keyof GoldenFields)[] = []): void {
  for (const key of Object.keys(expected) as (keyof GoldenFields)[]) {
    if (skip.includes(key)) continue;
    const a = actual[key];
    const e = expected[key];
    if (typeof e === 'number') {
      expect(close(a as number, e), `${key}: ${a} vs ${e}`).toBe(true);
    } else if (Array.isArray(e)) {
      expect((a as number[]).length, `${key} length`).toBe(e.length);
      e.forEach((v, i) =>
        expect(close((a as number[])[i], v), `${key}[${i}]: ${(a as number[])[i]} vs ${v}`).toBe(true),
      );
    } else {
      expect(a, key).toEqual(e);
    }
  }
}

/** Times (ms after start) of the messages upstream handled, per reads_observed: one per data message, none for pings/[DONE]. */
function expectedMessageTimes(expected: GoldenExpected): number[] {
  const times: number[] = [];
  for (const read of expected.reads_observed) {
    for (const m of read.messages) if (!m.startsWith(':') && m !== 'data: [DONE]') times.push(read.t_ms);
  }
  return times;
}

const PLAIN = [1, 2, 3, 4, 6, 7, 9, 10];

describe('golden replay (vLLM-Omni client parity)', () => {
  it('covers every recorded case', () => {
    expect(caseNumbers()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it.each(PLAIN)('case %i: every field equals the recorded record, messages timed at the recorded reads', (n) => {
    const { sse, expected } = loadCase(n);
    // The transcript events are the reads upstream observed (one event = one read).
    expect(sse.events.length).toBe(expected.reads_observed.length);
    const clock = new ManualClock(1000);
    const { record, parser, messageTimesMs } = replayAttempt(sse, clock, expected.client_input.prompt_len);
    expect(parser.failed).toBe(false);
    expectFields(asGoldenFields(record), expected.fields);
    expect(messageTimesMs).toEqual(expectedMessageTimes(expected));
  });

  it('case 4: the odd-rate WAV chunk is dropped with exactly one warning naming both formats', () => {
    const { sse } = loadCase(4);
    const { record } = replayAttempt(sse, new ManualClock(1000));
    expect(record.warnings).toHaveLength(1);
    expect(record.warnings[0]).toContain('Dropped 1 wav chunks with inconsistent params');
    expect(record.warnings[0]).toContain('expected=(1, 2, 24000), first_inconsistent=(1, 2, 16000)');
  });

  it('case 6: TTFT comes from read w4 (vLLM leftover rule), not w2/w3', () => {
    const { sse } = loadCase(6);
    const { record, messageTimesMs } = replayAttempt(sse, new ManualClock(1000));
    expect(messageTimesMs.slice(0, 2)).toEqual([93.75, 187.5]);
    expect(record.ttft).toBe(0.1875);
  });

  it('case 5 (OMNI-NEW): the in-stream error fails the request with its message; timings unchanged', () => {
    const { sse, expected } = loadCase(5);
    const { record, parser } = replayAttempt(sse, new ManualClock(1000));
    expect(parser.failed).toBe(true);
    expect(record.success).toBe(false);
    expect(record.errorCode).toBe('REQ_STREAM_ERROR');
    expect(record.error).toBe('EngineCore encountered an issue. See stack trace (above) for the root cause.');
    // The error event still sets the last-event time, so latency is the recorded 0.46875.
    expectFields(asGoldenFields(record), expected.fields, ['success', 'error']);
  });

  it('case 11 (DESIGN): `data:` without a space is accepted with one warning, so the request succeeds', () => {
    const { sse, expected } = loadCase(11);
    const { record, parser, messageTimesMs } = replayAttempt(sse, new ManualClock(1000));
    expect(parser.failed).toBe(false);
    expect(record.warnings).toHaveLength(1);
    expect(record.warnings[0]).toMatch(/without a space/);
    // Upstream failed at the first event (JSONDecodeError); accepted, the stream reads like case 7's
    // role chunk + one token: ttft at 187.5 ms, no ITL, latency = the last event (187.5 ms).
    expect(messageTimesMs).toEqual([62.5, 187.5]);
    const accepted: GoldenFields = {
      ...expected.fields,
      success: true,
      error: '',
      ttft: 0.1875,
      itl: [],
      latency: 0.1875,
      output_tokens: 1,
      prompt_len: 17,
      generated_text: 'x',
      text_latency: 0.1875,
    };
    expectFields(asGoldenFields(record), accepted);
  });

  it('case 8: HTTP 500 is failed by the engine with the reason phrase; the record keeps the client estimate', () => {
    const { sse, expected } = loadCase(8);
    expect(sse.http_status).toBe(500);
    // What the engine does on a non-200 status: no body parsing, the reason phrase as error.
    const record = newRecord(expected.client_input.prompt_len, 1000);
    markFailed(record, 'REQ_HTTP_STATUS', 'Internal Server Error', true);
    expectFields(asGoldenFields(record), expected.fields);
    expect(record.errorCode).toBe('REQ_HTTP_STATUS');
  });

  it('case 12: a stream cut mid-event is retried 3 times 0.1 s apart; the last attempt keeps partial fields', () => {
    const { sse, expected } = loadCase(12);
    expect(expected.http_requests_made).toBe(4);
    const clock = new ManualClock(1000);
    let last = replayAttempt(sse, clock);
    for (let attempt = 2; attempt <= 4; attempt++) {
      expect(last.parser.failed).toBe(false); // the cut is a transport error, not a parse failure
      clock.t += 0.1; // the retry back-off sleep
      last = replayAttempt(sse, clock);
      last.record.attempts = attempt;
    }
    // The engine marks the final attempt failed with its transport error (wording differs from aiohttp's).
    markFailed(last.record, 'REQ_TRANSPORT', 'the connection closed before the response was complete');
    expectFields(asGoldenFields(last.record), expected.fields, ['error']);
    expect(last.record.error).toMatch(/^transport error: /);
    expect(last.record.attempts).toBe(4);
    // generated_text is only published when the stream ends, as upstream does.
    expect(last.record.generatedText).toBe('');
  });
});
