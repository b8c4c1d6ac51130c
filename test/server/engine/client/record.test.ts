import { describe, expect, it } from 'vitest';
import { compactRecord, newRecord } from '#server/engine/client/record.ts';

describe('compactRecord: an ended request keeps what the metrics and the result read', () => {
  it('keeps the object, its metric fields and its ITL values; drops the in-stream diagnostics for shared empties', () => {
    const a = newRecord(32, 1.5);
    a.success = true;
    a.ttft = 0.1;
    a.itl.push(0.01, 0.02, 0.03);
    a.generatedText = 'hello world';
    a.stageMetrics['0'] = { stage_id: 0 };
    a.warnings.push('format drift');
    const itl = a.itl;
    const before = { ...a, itl: [...a.itl] };
    compactRecord(a);
    expect(a).toMatchObject({ ...before, stageMetrics: {}, warnings: [] });
    // A copy sized to its length (a pushed array keeps spare capacity), not the array the parser filled.
    expect(a.itl).not.toBe(itl);
    expect(a.itl).toEqual([0.01, 0.02, 0.03]);

    const b = newRecord(32, 2);
    compactRecord(b);
    // Shared, read-only empties: no object per finished request.
    expect(b.stageMetrics).toBe(a.stageMetrics);
    expect(b.warnings).toBe(a.warnings);
    expect(Object.isFrozen(b.stageMetrics) && Object.isFrozen(b.warnings) && Object.isFrozen(b.itl)).toBe(true);
    expect(b.itl).toEqual([]);
  });
});
