/** The request table's text store gives back exactly the strings it was given (docs/design.md#request-table). */
import { describe, expect, it } from 'vitest';
import { TextStore } from '#server/engine/records/textStore.ts';

describe('TextStore', () => {
  it('round-trips every Latin-1 code point (0x80–0x9F too: not windows-1252) and long strings', () => {
    const store = new TextStore();
    const latin1 = Array.from({ length: 256 }, (_, c) => String.fromCharCode(c)).join('');
    const long = 'word '.repeat(10_000); // longer than one decode slice
    const ids = [latin1, long, '', 'a'].map((s) => store.add(s));
    expect(ids.map((id) => store.get(id))).toEqual([latin1, long, '', 'a']);
    expect(store.get(ids[0]).charCodeAt(0x80)).toBe(0x80);
    // Either side of the last Latin-1 code point, one after another in the same blocks.
    const edge = ['ÿÿ', 'aĀb', 'x\u00ff', '\u0100', 'end'];
    const edgeIds = edge.map((s) => store.add(s));
    expect(edgeIds.map((id) => store.get(id))).toEqual(edge);
  });

  it('round-trips text beyond Latin-1 code unit for code unit, lone surrogates and astral pairs included', () => {
    const store = new TextStore();
    const wide = ['✓ \ud800 x \udfff', '😀 é', '\ud83d', `${'ü'.repeat(9000)}✓`];
    const ids = wide.map((s) => store.add(s));
    const back = ids.map((id) => store.get(id));
    expect(back).toEqual(wide);
    expect([...back[0]].length).toBe(wide[0].length); // the lone surrogates stayed single code units
  });
});
