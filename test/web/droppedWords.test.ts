/** The run page's line for events the database refused (docs/design.md#outage-buffer): said when there were any. */
import { describe, expect, it } from 'vitest';
import { droppedWords } from '#web/state/runData.ts';

describe('the dropped-events line', () => {
  it('counts the refused events with the database’s words, and is absent when none were', () => {
    expect(droppedWords(0, null)).toBeNull();
    expect(droppedWords(1, 'invalid byte sequence for encoding "UTF8": 0x00')).toBe(
      '1 event of this run could not be stored (database error: invalid byte sequence for encoding "UTF8": 0x00).',
    );
    expect(droppedWords(3, null)).toBe('3 events of this run could not be stored (database error: unknown).');
  });
});
