/**
 * The engine's request table gives back exactly the records written into it
 * (every field, every ITL, every string), through one accessor; unsent
 * requests ended as a range read as the placeholder records they replace;
 * and a finished request costs a hundred bytes or so, not a record object.
 */
import { describe, expect, it } from 'vitest';
import { newRecord, placeholderRecord, type RequestRecord } from '#server/engine/records/record.ts';
import { CHUNK } from '#server/engine/records/columns.ts';
import { RequestTable } from '#server/engine/records/requestTable.ts';

/** What the table keeps of a record: everything but the in-stream diagnostics. */
const kept = (r: RequestRecord): Record<string, unknown> => {
  const { warnings: _w, itl, ...rest } = r;
  return { ...rest, itl: Array.from(itl) };
};
const read = (t: RequestTable, i: number): Record<string, unknown> => {
  const r = t.at(i);
  return { ...r, itl: Array.from(r.itl) };
};

function odd(i: number): RequestRecord {
  const r = newRecord(70_000 + i, 1234.5678 + i);
  r.success = i % 2 === 0;
  r.attempts = i + 1;
  r.ttft = -0; // kept as -0, not 0
  r.latency = Number.MAX_VALUE;
  r.outputTokens = 2 ** 40 + 0.5; // not a whole 32-bit count: the chunk widens to float64
  r.itl = Array.from({ length: 100_000 }, (_, k) => k / 3); // longer than a block of the packed lists
  r.generatedText = `héllo ✓ \ud800 ${i}`; // beyond Latin-1, a lone surrogate
  r.error = 'Service Unavailable';
  r.errorCode = 'REQ_HTTP_STATUS';
  r.audioTtfp = NaN;
  r.audioDuration = 1e-300;
  r.audioFrames = 255;
  r.audioRtf = Infinity;
  r.textLatency = 3.25;
  r.hasAudio = true;
  r.endTime = 99.5;
  r.stageSnapshot = {
    '0': { num_tokens_out: i, finish_reason: i % 2 ? 'stop' : null },
    '2': { audio_duration_s: 0.5 },
  };
  return r;
}

describe('the request table', () => {
  it('reads back every field of every record exactly as written, in any order of writing', () => {
    const n = 3 * CHUNK + 5;
    const t = new RequestTable(n, () => 7);
    const written = new Map<number, RequestRecord>();
    for (const i of [n - 1, 0, CHUNK, 2, 2 * CHUNK + 1]) {
      const r = odd(i);
      written.set(i, r);
      t.write(i, r, r.success ? 'completed' : 'failed', null, null);
    }
    const plain = newRecord(12, 5);
    plain.success = true;
    plain.itl = [0.1, 0.2];
    t.write(1, plain, 'completed', null, null);
    expect(read(t, 1)).toEqual(kept(plain));
    expect('endTime' in t.at(1)).toBe(false); // absent stays absent
    expect('stageSnapshot' in t.at(1)).toBe(false);
    for (const [i, r] of written) {
      expect(read(t, i)).toEqual(kept(r));
      expect(Object.is(t.at(i).ttft, -0)).toBe(true);
    }
    expect(t.statusAt(0)).toBe('completed');
    expect(t.statusAt(n - 1)).toBe('completed'); // n - 1 is even
  });

  it("a record without a backend's own fields reads back without them beside rows that have them", () => {
    const t = new RequestTable(4, () => 1);
    const turn = newRecord(3, 1);
    Object.assign(turn, {
      success: true,
      realtimeSessionId: 'sess-1',
      realtimeTurn: 2,
      realtimeTrigger: 'vad',
      realtimeTtftS: 0.25,
      audioContinuityOk: false,
      audioUnderrunS: 0.5,
    });
    const chat = newRecord(4, 2);
    chat.success = true;
    // In the same column chunks, before and after: a chat row holds none of the turn's values.
    t.write(0, turn, 'completed', null, null);
    t.write(1, chat, 'completed', null, null);
    t.write(2, turn, 'completed', null, null);
    expect(read(t, 1)).toEqual(kept(chat));
    for (const i of [0, 2]) expect(read(t, i)).toEqual(kept(turn));
  });

  it('keeps the status, stop cause, timeout kind and first send time beside each record', () => {
    const t = new RequestTable(3, () => 1);
    t.write(0, newRecord(1, 0), 'timed_out', null, 'first_byte');
    t.write(1, newRecord(1, 0), 'cancelled_after_timeout', 'breaker', null);
    t.setSentT(0, 12.5);
    t.setSentT(0, 40); // a retry's send leaves the first
    expect([...t.timeoutKinds]).toEqual(['first_byte', null, null]);
    expect([...t.stoppedBy]).toEqual([null, 'breaker', null]);
    expect(t.sentT(0)).toBe(12.5);
    expect(t.sentT(1)).toBeNull();
  });

  it('a range ended unsent reads as the placeholder records it replaces, prompt lengths from the dataset', () => {
    const n = 2 * CHUNK + 10;
    const t = new RequestTable(n, (i) => 30 + (i % 3));
    const done = odd(0);
    t.write(0, done, 'completed', null, null);
    t.endUnsent(1, n, 'not dispatched: interrupted', 'interrupt');
    for (const i of [1, CHUNK, n - 1]) {
      const placeholder = placeholderRecord(30 + (i % 3), 'REQ_CANCELLED', 'not dispatched: interrupted', true);
      expect(read(t, i)).toEqual(kept(placeholder));
      expect(t.statusAt(i)).toBe('not_dispatched');
      expect(t.stoppedBy.at(i)).toBe('interrupt');
    }
    expect(read(t, 0)).toEqual(kept(done));
  });

  it('a finished request of a text run costs about a hundred bytes; an unsent one a few', () => {
    const n = 8 * CHUNK;
    const t = new RequestTable(n, () => 32);
    for (let i = 0; i < n; i++) {
      const r = newRecord(32, 1000 + i / 7);
      r.success = true;
      r.attempts = 1;
      r.ttft = 0.01 + i / 1e6;
      r.itl = [0.002 + i / 1e7];
      r.latency = 0.02 + i / 1e6;
      r.outputTokens = 2;
      r.generatedText = 'Hello world';
      r.textLatency = r.ttft + r.itl[0];
      r.endTime = r.startTime + r.latency;
      t.write(i, r, 'completed', null, null);
      t.setSentT(i, i);
    }
    // Seven float64s (ttft, the ITL value, latency, text latency, start, end, sent), where the ITL list and the
    // text lie (block, offset, length: three 32-bit numbers each), the text's 11 bytes, the blocks' unused ends
    // and a few one-byte columns: 110.9 bytes (106 when blocks did not start small: the ITLs' block number was
    // then 0 throughout this table, and its column was never allocated; a real run's lists fill several blocks).
    expect(t.bytes / n).toBeLessThan(115);
    // Status, stop cause, error code (a byte each) and the error's id in the text store (4 bytes).
    const many = 64 * CHUNK;
    const unsent = new RequestTable(many, () => 32);
    unsent.endUnsent(0, many, 'not dispatched: interrupted', 'interrupt');
    expect(unsent.bytes / many).toBeLessThan(8);
  });
});
