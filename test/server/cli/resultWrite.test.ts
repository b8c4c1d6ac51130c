/**
 * A result the user asked for and that could not be written fails the run
 * (exit 1, the reason printed), and generated result names stay inside
 * --result-dir whatever the label holds.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { run } from '#server/cli/bench.ts';
import { NAME_PART_MAX, resultFilename, safeNamePart } from '#server/engine/results/resultFile.ts';

let server: TestServer;
let dir: string;
let logs: string[];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-write-'));
  server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
  logs = [];
  const keep = (...a: unknown[]) => void logs.push(a.join(' '));
  vi.spyOn(console, 'log').mockImplementation(keep);
  vi.spyOn(console, 'error').mockImplementation(keep);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const bench = (...extra: string[]) =>
  run([
    '--base-url',
    server.url,
    '--model',
    'org/m',
    '--num-prompts',
    '2',
    '--random-input-len',
    '4',
    '--disable-tqdm',
    '--save-result',
    ...extra,
  ]);

describe('a result that could not be written', () => {
  it('the control: the same run with a writable folder passes and writes its file', async () => {
    expect(await bench('--result-dir', dir, '--label', 'ok')).toBe(0);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('a file name too long for the file system: exit 1, ENAMETOOLONG named', async () => {
    expect(await bench('--result-dir', dir, '--result-filename', `${'n'.repeat(300)}.json`)).toBe(1);
    const said = logs.join('\n');
    expect(said).toMatch(/could not write the result to .*ENAMETOOLONG/);
    expect(said).toMatch(/Verdict:\s+failed/);
    expect(server.arrivals).toHaveLength(2);
  });

  it('a disk that is full (/dev/full answers ENOSPC): exit 1 with the reason', async () => {
    expect(await bench('--result-dir', '/dev', '--result-filename', 'full')).toBe(1);
    expect(logs.join('\n')).toMatch(/could not write the result to \/dev\/full: ENOSPC/);
  });

  it('a result folder that cannot be made (a file stands in its way): exit 1 with the reason', async () => {
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'x');
    expect(await bench('--result-dir', join(blocker, 'results'))).toBe(1);
    expect(logs.join('\n')).toMatch(/could not write the result to .*(ENOTDIR|EEXIST)/);
  });
});

describe('result file names stay inside --result-dir', () => {
  it("a label with '/' and '..' is one safe part: the file lands in --result-dir", async () => {
    const inner = join(dir, 'a', 'b');
    mkdirSync(inner, { recursive: true });
    expect(await bench('--result-dir', inner, '--label', 'a/../../x')).toBe(0);
    const files = readdirSync(inner);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^a_.._.._x-infqps-m-\d{8}-\d{6}\.json$/);
    expect(readdirSync(dir).sort()).toEqual(['a']);
    expect(JSON.parse(readFileSync(join(inner, files[0]), 'utf8')).label).toBe('a/../../x');
  });

  it('a 300-character label is cut, and the run passes with its file', async () => {
    expect(await bench('--result-dir', dir, '--label', 'L'.repeat(300))).toBe(0);
    const [file] = readdirSync(dir);
    expect(file.startsWith(`${'L'.repeat(NAME_PART_MAX)}-infqps`)).toBe(true);
  });

  it('--result-filename climbing out with .. or absolute is refused before anything is sent (exit 2)', async () => {
    for (const name of ['../x.json', 'sub/../../x.json', '/tmp/x.json']) {
      logs.length = 0;
      expect(await bench('--result-dir', dir, '--result-filename', name), name).toBe(2);
      expect(logs.join('\n'), name).toMatch(/--result-filename/);
    }
    expect(server.arrivals).toHaveLength(0);
    expect(existsSync(join(dir, '..', 'x.json'))).toBe(false);
  });

  it('safeNamePart: separators, control characters and a leading dot become _', () => {
    expect(safeNamePart('a/b\\c\u0000d\u001fe\u007f')).toBe('a_b_c_d_e_');
    expect(safeNamePart('..hidden')).toBe('_.hidden');
    expect(
      resultFilename({
        label: null,
        backend: 'openai-chat-omni',
        requestRate: Infinity,
        maxConcurrency: 10,
        modelId: 'openbmb/MiniCPM-o-4_5',
        date: '20261201-000000',
      }),
    ).toBe('openai-chat-omni-infqps-concurrency10-MiniCPM-o-4_5-20261201-000000.json');
  });
});
