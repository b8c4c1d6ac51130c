/**
 * A stream's chunks read from a learnt template: whatever a match returns is
 * what JSON.parse gives for the fields the stream parser reads, for every
 * text it matches (a seeded fuzz of thousands of mutated chunks), and any
 * text it cannot vouch for goes to JSON.parse.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkShapes, ChunkTemplate, MAX_SHAPES } from '#server/engine/transport/reading/chunkTemplate.ts';
import { newRecord } from '#server/engine/records/record.ts';
import { StreamParser } from '#server/engine/transport/reading/streamParser.ts';
import { ManualClock } from '#test/fixtures/golden-helpers/golden.ts';

/** A vLLM-Omni text chunk as its server writes it. */
function chunk(
  k: number,
  content: string,
  opts: { id?: string; created?: number; prompt?: number; model?: string; role?: boolean; total?: boolean } = {},
): string {
  const delta = opts.role ? { role: 'assistant', content } : { content };
  const prompt = opts.prompt ?? 10;
  const usage: Record<string, number> = { prompt_tokens: prompt, completion_tokens: k };
  if (opts.total !== false) usage.total_tokens = prompt + k;
  return JSON.stringify({
    id: opts.id ?? 'chatcmpl-7f3a',
    object: 'chat.completion.chunk',
    created: opts.created ?? 1764662400,
    model: opts.model ?? 'openbmb/MiniCPM-o-4_5',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    usage,
    modality: 'text',
  });
}

/** The fields the parser reads of a JSON.parse value, or null when it is not a plain text chunk. */
function plainFields(e: Record<string, any>): unknown {
  const plain =
    e !== null &&
    typeof e === 'object' &&
    !Array.isArray(e) &&
    e.modality === 'text' &&
    (e.error === undefined || e.error === null) &&
    (e.metrics === undefined || e.metrics === null) &&
    Array.isArray(e.choices) &&
    e.choices.length === 1 &&
    typeof e.choices[0] === 'object' &&
    e.choices[0] !== null &&
    (e.choices[0].token_ids === undefined || e.choices[0].token_ids === null) &&
    typeof e.choices[0].delta === 'object' &&
    e.choices[0].delta !== null &&
    (e.choices[0].delta.audio === undefined || e.choices[0].delta.audio === null) &&
    typeof e.usage === 'object' &&
    e.usage !== null;
  if (!plain) return null;
  return {
    usage: { prompt_tokens: e.usage.prompt_tokens, completion_tokens: e.usage.completion_tokens },
    choices: [{ delta: { content: e.choices[0].delta.content } }],
    modality: 'text',
  };
}

/** What a match gives, in the shape plainFields() writes, or null when the template does not read `text`. */
function read(t: ChunkTemplate, text: string): unknown {
  if (!t.match(text)) return null;
  return {
    usage: { prompt_tokens: t.prompt, completion_tokens: t.completion },
    choices: [{ delta: { content: t.content } }],
    modality: 'text',
  };
}

function learnt(text: string): ChunkTemplate {
  const t = new ChunkTemplate();
  t.learn(text, JSON.parse(text) as Record<string, unknown>);
  return t;
}

afterEach(() => vi.restoreAllMocks());

describe('ChunkTemplate', () => {
  it('reads the next chunks of a stream from their values alone, exactly as JSON.parse reads them', () => {
    const t = learnt(chunk(1, 'Hello'));
    const contents = [
      ' world',
      '',
      'a "quoted" word',
      'line\nbreak\ttab',
      'café ☕ 😀',
      '\u0000\u001f',
      '</s>\\',
      '中文',
    ];
    contents.forEach((c, k) => {
      const text = chunk(k + 2, c);
      const got = read(t, text);
      expect(got, text).not.toBeNull();
      expect(got).toEqual(plainFields(JSON.parse(text)));
    });
    // Escapes JSON.stringify would not write (\/ and \u0041) are read as JSON.parse reads them.
    const escaped = chunk(3, 'X').replace('"content":"X"', '"content":"\\/\\u0041\\u00e9"');
    expect(read(t, escaped)).toEqual(plainFields(JSON.parse(escaped)));
    expect((read(t, escaped) as any).choices[0].delta.content).toBe('/Aé');
    // Number literals in any JSON form are JSON.parse's values.
    for (const n of ['0', '12', '1.5', '-3', '2e3', '1E-2', '123456789012345678901'])
      expect(read(t, chunk(7, 'y').replace('"completion_tokens":7', `"completion_tokens":${n}`))).toEqual(
        plainFields(JSON.parse(chunk(7, 'y').replace('"completion_tokens":7', `"completion_tokens":${n}`))),
      );
  });

  it("reads another request's chunks (its id, creation time and prompt count) with the shape one request learnt", () => {
    const t = learnt(chunk(1, 'Hello'));
    const other = chunk(5, 'x', { id: 'chatcmpl-b41c09e2d', created: 1764662999, prompt: 1031 });
    expect(read(t, other)).toEqual(plainFields(JSON.parse(other)));
    expect((read(t, other) as any).usage.prompt_tokens).toBe(1031);
    // An id written with escapes, a prompt count absent from the learnt chunk's text: still JSON.parse's values.
    const escapedId = other.replace('"id":"chatcmpl-b41c09e2d"', '"id":"chat\\u0063mpl-\\"q\\""');
    expect(read(t, escapedId)).toEqual(plainFields(JSON.parse(escapedId)));
    // A prompt count that is not a whole number was never a slot: the learnt chunk's text is fixed there.
    const half = learnt(chunk(1, 'a').replace('"prompt_tokens":10', '"prompt_tokens":10.5'));
    expect(read(half, chunk(2, 'b').replace('"prompt_tokens":10', '"prompt_tokens":10.5'))).not.toBeNull();
    expect(read(half, chunk(2, 'b').replace('"prompt_tokens":10', '"prompt_tokens":11.5'))).toBeNull();
  });

  it("reads a stream's chunks with its request's values fixed, and still reads one whose values change mid-stream", () => {
    const t = learnt(chunk(1, 'Hello'));
    const a = { id: 'chatcmpl-a', created: 5, prompt: 40 };
    const stream = [
      chunk(2, 'x', a),
      chunk(3, 'y', a),
      // The same request's values after two chunks read with them fixed: then another id, creation time, prompt count.
      chunk(4, 'z', { ...a, id: 'chatcmpl-b' }),
      chunk(5, 'z', { ...a, created: 6 }),
      chunk(6, 'z', { ...a, prompt: 41 }),
      chunk(7, 'w', a),
    ];
    const parse = vi.spyOn(JSON, 'parse');
    const got = stream.map((c) => read(t, c));
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    expect(got).toEqual(stream.map((c) => plainFields(JSON.parse(c))));
    expect(got.map((g) => (g as any).usage.prompt_tokens)).toEqual([40, 40, 40, 40, 41, 40]);
  });

  it("shares a run's shapes between its streams: a stream reads the chunks another stream learnt, without a parse", () => {
    const shapes = new ChunkShapes();
    const first = new ChunkTemplate(shapes);
    const role = chunk(0, '', { role: true });
    const text = chunk(1, 'Hello');
    for (const c of [role, text]) {
      expect(read(first, c)).toBeNull();
      first.learn(c, JSON.parse(c) as Record<string, unknown>);
    }
    expect(shapes.list).toHaveLength(2);
    const parse = vi.spyOn(JSON, 'parse');
    const second = new ChunkTemplate(shapes);
    const next = { id: 'chatcmpl-2', created: 1764663000, prompt: 77 };
    const stream = [chunk(0, '', { role: true, ...next }), chunk(1, 'a', next), chunk(2, 'b', next)];
    const got = stream.map((c) => read(second, c));
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    expect(got).toEqual(stream.map((c) => plainFields(JSON.parse(c))));
    // A template of its own (no run's shapes) learns nothing from the other stream.
    expect(read(new ChunkTemplate(), stream[1])).toBeNull();
  });

  it(`keeps a run's newest ${MAX_SHAPES} shapes, each once`, () => {
    const shapes = new ChunkShapes();
    const t = new ChunkTemplate(shapes);
    const models = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'];
    for (const model of models) {
      const c = chunk(1, 'w', { model });
      t.learn(c, JSON.parse(c) as Record<string, unknown>);
    }
    expect(shapes.list).toHaveLength(MAX_SHAPES);
    const reads = (model: string): boolean => read(new ChunkTemplate(shapes), chunk(3, 'z', { model })) !== null;
    expect(models.map(reads)).toEqual([false, false, true, true, true, true]);
    // Learnt again (another stream of the same shape): moved to the front, not kept twice.
    const again = chunk(2, 'q', { model: 'm2' });
    new ChunkTemplate(shapes).learn(again, JSON.parse(again) as Record<string, unknown>);
    expect(shapes.list).toHaveLength(MAX_SHAPES);
    expect(models.map(reads)).toEqual([false, false, true, true, true, true]);
    const m6 = chunk(1, 'w', { model: 'm6' });
    t.learn(m6, JSON.parse(m6) as Record<string, unknown>);
    expect([...models, 'm6'].map(reads)).toEqual([false, false, true, false, true, true, true]);
  });

  it('does not read a text that differs anywhere but in those values: the caller parses it', () => {
    const t = learnt(chunk(1, 'Hello'));
    const others = [
      chunk(2, 'x', { model: 'another-model' }),
      chunk(2, 'x', { role: true }),
      chunk(2, 'x', { total: false }),
      chunk(2, 'x').replace('"finish_reason":null', '"finish_reason":"length"'),
      chunk(2, 'x').replace('{"id"', '{ "id"'),
      `${chunk(2, 'x')} `,
      chunk(2, 'x').slice(0, -1),
      JSON.stringify({ id: 'chatcmpl-7f3a', choices: [], usage: { prompt_tokens: 10, completion_tokens: 2 } }),
      chunk(2, 'x').replace('"modality":"text"', '"modality":"audio"'),
      '',
    ];
    for (const text of others) expect(read(t, text), text).toBeNull();
    expect(read(new ChunkTemplate(), chunk(1, 'Hello'))).toBeNull(); // nothing learnt yet
  });

  it('matches only what JSON.parse reads the same: 20,000 seeded mutations of chunks', () => {
    const t = learnt(chunk(1, 'Hello'));
    let seed = 0x9e3779b9;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed % n;
    };
    const palette = [
      '"',
      '\\',
      ',',
      ':',
      '{',
      '}',
      '[',
      ']',
      '0',
      '7',
      '-',
      '.',
      'e',
      '+',
      ' ',
      '\n',
      '\u0001',
      'a',
      'u',
      'é',
    ];
    let matched = 0;
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = chunk(2 + rand(50), ['w', 'ab c', '', 'x"y', 'é'][rand(5)], {
        id: ['chatcmpl-7f3a', 'chatcmpl-0', 'x"y', ''][rand(4)],
        created: rand(2) === 0 ? 1764662400 : rand(1e9),
        prompt: rand(3) === 0 ? 10 : rand(5000),
      });
      // Half the mutations fall in or next to a value (a literal changed may still match), half anywhere.
      const regions = [
        [text.indexOf('"id":') + 5, text.indexOf(',"object"')],
        [text.indexOf('"created":') + 10, text.indexOf(',"model"')],
        [text.indexOf('"prompt_tokens":') + 16, text.indexOf(',"completion_tokens"')],
        [text.indexOf('"content":') + 10, text.indexOf('},"logprobs"')],
        [text.indexOf('"completion_tokens":') + 20, text.indexOf(',"total_tokens"')],
        [text.indexOf('"total_tokens":') + 15, text.indexOf('},"modality"')],
      ];
      for (let m = 1 + rand(3); m > 0; m--) {
        const [from, to] = regions[rand(regions.length)];
        const at = rand(2) === 0 ? rand(text.length + 1) : Math.max(0, from - 1 + rand(to - from + 3));
        const c = palette[rand(palette.length)];
        const op = rand(3);
        text =
          op === 0
            ? text.slice(0, at) + c + text.slice(at + 1)
            : op === 1
              ? text.slice(0, at) + c + text.slice(at)
              : text.slice(0, at) + text.slice(at + 1);
      }
      const got = read(t, text);
      if (got === null) {
        refused++;
        continue;
      }
      matched++;
      let full: unknown;
      expect(() => (full = JSON.parse(text)), text).not.toThrow();
      expect(got, text).toEqual(plainFields(full as Record<string, unknown>));
    }
    // Both sides are exercised: mutations inside the values still match, the rest are refused.
    expect(matched).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(2_000);
  });

  it('learns nothing where the values cannot be found without doubt', () => {
    // The content written with escapes: the value as JSON.stringify writes it is not in the text.
    const escaped = chunk(1, 'a').replace('"content":"a"', '"content":"\\u0061"');
    expect(read(learnt(escaped), chunk(2, 'b').replace('"content":"b"', '"content":"\\u0062"'))).toBeNull();
    // The same key and value written twice.
    const twice = chunk(1, 'a').replace('"object"', '"extra":{"content":"a"},"object"');
    expect(read(learnt(twice), twice)).toBeNull();
    // Found once, but not where the parser reads it (the real one escaped): the check parse refuses it.
    const decoy = chunk(1, 'a')
      .replace('"content":"a"', '"content":"\\u0061"')
      .replace('"object"', '"extra":{"content":"a"},"object"');
    const t = learnt(decoy);
    expect(read(t, decoy.replace('"extra":{"content":"a"}', '"extra":{"content":"z"}'))).toBeNull();
    // Chunks the parser reads more of are never learnt.
    for (const other of [
      JSON.stringify({
        error: { message: 'boom' },
        choices: [{ delta: { content: 'a' } }],
        usage: { completion_tokens: 1 },
        modality: 'text',
      }),
      JSON.stringify({
        metrics: { x: 1 },
        choices: [{ delta: { content: 'a' } }],
        usage: { completion_tokens: 1 },
        modality: 'text',
      }),
      JSON.stringify({
        choices: [{ delta: { content: 'a' }, token_ids: [1] }],
        usage: { completion_tokens: 1 },
        modality: 'text',
      }),
      JSON.stringify({
        choices: [{ delta: { content: 'a', audio: { data: 'AA' } } }],
        usage: { completion_tokens: 1 },
        modality: 'text',
      }),
      JSON.stringify({
        choices: [{ delta: { content: 'a' } }, { delta: {} }],
        usage: { completion_tokens: 1 },
        modality: 'text',
      }),
    ])
      expect(read(learnt(other), other), other).toBeNull();
  });

  it('stops learning from a stream whose every chunk has new fixed text (8 learnings, each one more parse)', () => {
    const t = new ChunkTemplate();
    const parse = vi.spyOn(JSON, 'parse');
    const perLearning: number[] = [];
    for (let k = 0; k < 20; k++) {
      const text = chunk(k + 1, 'w', { model: `model-${k}` });
      expect(read(t, text)).toBeNull();
      const event = JSON.parse(text) as Record<string, unknown>;
      const before = parse.mock.calls.length;
      t.learn(text, event);
      perLearning.push(parse.mock.calls.length - before);
    }
    // Each learning costs a parse (its check); after 8 a stream learns no more.
    expect(perLearning.slice(0, 8)).toEqual(Array(8).fill(1));
    expect(perLearning.slice(8)).toEqual(Array(12).fill(0));
  });
});

describe('StreamParser with the template', () => {
  it('parses a 50-token stream with a handful of JSON.parse calls, and the record is the one full parsing gives', () => {
    const body = [
      chunk(0, '', { role: true }),
      ...Array.from({ length: 50 }, (_, k) => chunk(k + 1, `w${k} `)),
      JSON.stringify({ id: 'chatcmpl-7f3a', choices: [], usage: { prompt_tokens: 10, completion_tokens: 50 } }),
    ]
      .map((e) => `data: ${e}\n\n`)
      .concat('data: [DONE]\n\n');
    const run = (spy: boolean) => {
      const clock = new ManualClock(0);
      const record = newRecord(10, clock.now());
      const parser = new StreamParser(record, { now: () => clock.now() });
      const parse = spy ? vi.spyOn(JSON, 'parse') : null;
      for (const read of body) {
        clock.t += 0.01;
        parser.push(new TextEncoder().encode(read));
      }
      parser.end();
      const calls = parse?.mock.calls.length ?? 0;
      vi.restoreAllMocks();
      return { record, calls };
    };
    const { record, calls } = run(true);
    // The role chunk and the first content chunk are parsed and checked (2 each), the usage-only last one once.
    expect(calls).toBeLessThanOrEqual(5);
    expect(record.success).toBe(true);
    expect(record.outputTokens).toBe(50);
    expect(record.generatedText).toBe(Array.from({ length: 50 }, (_, k) => `w${k} `).join(''));
    expect(record.itl).toHaveLength(49);
    expect(record.ttft).toBeCloseTo(0.02, 9);
  });
});
