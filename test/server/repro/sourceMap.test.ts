/**
 * The watchdog's source-map lookup (Node's module.SourceMap underneath): a
 * map beside a compiled file, named relative to the script as the build
 * writes it, and an inline `data:` map; positions come back 1-based in the
 * original file, and a script without a usable map keeps its own position.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSourceMap, originalPosition } from '#server/repro/watchdog/sourceMap.ts';
import { toFrame } from '#server/repro/watchdog/frames.ts';

// "AAAA;AACA,IAAE" — generated line 0 col 0 → source line 0 col 0; line 1 col 0 → line 1 col 0, col 4 → line 1 col 2.
const PAYLOAD = { version: 3, sources: ['../src/kernel.ts'], names: [], mappings: 'AAAA;AACA,IAAE' };
const dir = mkdtempSync(join(tmpdir(), 'stallscope-sourcemap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('watchdog source maps', () => {
  it('reads a map named relative to the script and resolves sources against the map', () => {
    writeFileSync(join(dir, 'kernel.js.map'), JSON.stringify(PAYLOAD));
    const script = pathToFileURL(join(dir, 'kernel.js')).href;
    const map = loadSourceMap('kernel.js.map', script);
    expect(map).not.toBeNull();
    expect(originalPosition(map!, 1, 5)).toEqual({ file: join(dir, '..', 'src', 'kernel.ts'), line: 2, column: 3 });
    expect(originalPosition(map!, 1, 0)).toEqual({ file: join(dir, '..', 'src', 'kernel.ts'), line: 2, column: 1 });
  });

  it('reads an inline data: map, resolving sources against the script', () => {
    const url = `data:application/json;base64,${Buffer.from(JSON.stringify(PAYLOAD)).toString('base64')}`;
    const map = loadSourceMap(url, 'file:///app/dist/kernel.js');
    expect(originalPosition(map!, 0, 0)).toEqual({ file: '/app/src/kernel.ts', line: 1, column: 1 });
  });

  it('keeps the generated position when the map is missing or unreadable', () => {
    const script = pathToFileURL(join(dir, 'other.js')).href;
    expect(loadSourceMap('missing.js.map', script)).toBeNull();
    writeFileSync(join(dir, 'broken.js.map'), '{ not json');
    expect(loadSourceMap('broken.js.map', script)).toBeNull();
    const maps = new Map();
    const frame = toFrame(
      { functionName: 'spin', location: { scriptId: '1', lineNumber: 4, columnNumber: 2 } },
      { url: script, sourceMapURL: 'broken.js.map' },
      maps,
    );
    expect(frame).toMatchObject({ function: 'spin', file: join(dir, 'other.js'), line: 5, column: 3 });
  });

  it('maps a CDP frame through the map beside its script', () => {
    writeFileSync(join(dir, 'kernel.js.map'), JSON.stringify(PAYLOAD));
    const frame = toFrame(
      { functionName: 'spinInKernel', location: { scriptId: '7', lineNumber: 1, columnNumber: 4 } },
      { url: pathToFileURL(join(dir, 'kernel.js')).href, sourceMapURL: 'kernel.js.map' },
      new Map(),
    );
    expect(frame).toMatchObject({
      function: 'spinInKernel',
      file: join(dir, '..', 'src', 'kernel.ts'),
      line: 2,
      column: 3,
    });
  });
});
