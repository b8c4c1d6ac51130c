/**
 * The compiled CLI runs `bench` from its one-module bundle (scripts/build.mjs, docs/design.md#first-wave): a real
 * run through the bin loads `benchBundle.js` and none of the per-file engine modules; STALLSCOPE_UNBUNDLED=1 loads
 * the per-file modules instead (the bench's loop watcher patches those), and so does `--help`. Which files Node loaded is read from its
 * own ESM debug log (NODE_DEBUG=esm).
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, runBenchChild } from '#test/helpers/benchChild.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The dist/ modules Node stored in its module map during the run, relative to dist/. */
function loadedDist(stderr: string): string[] {
  const urls = [...stderr.matchAll(/Storing file:\/\/\S*?\/dist\/(\S+?\.js)\b/g)].map((m) => m[1]);
  return [...new Set(urls)];
}

async function runVia(env: Record<string, string>) {
  server ??= await startSseServer(() => ({ kind: 'ok', tokens: 3, audioChunks: 1 }));
  const args = ['--base-url', server.url, '--model', 'm', '--num-prompts', '4', '--max-concurrency', '2'];
  const r = await runBenchChild(args, { NODE_DEBUG: 'esm', ...env }).done;
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/Successful requests:\s+4/);
  return loadedDist(r.stderr);
}

describe('the compiled bench runs from its bundle', () => {
  it('a run through the bin loads benchBundle.js and no per-file engine module', async () => {
    const loaded = await runVia({});
    expect(loaded).toContain('server/cli/benchBundle.js');
    expect(loaded.filter((f) => f.startsWith('server/engine/') || f === 'server/cli/bench.js')).toEqual([]);
  });

  it('bench --help loads the small per-file modules, not the 2.4 MB bundle', async () => {
    const r = await runBenchChild(['--help'], { NODE_DEBUG: 'esm' }).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--base-url');
    const loaded = loadedDist(r.stderr);
    expect(loaded).toContain('server/cli/bench.js');
    expect(loaded).not.toContain('server/cli/benchBundle.js');
    expect(loaded).not.toContain('server/engine/engine.js'); // the flag tables only, not the engine
  });

  it('STALLSCOPE_UNBUNDLED=1 loads the per-file modules and not the bundle', async () => {
    const loaded = await runVia({ STALLSCOPE_UNBUNDLED: '1' });
    expect(loaded).not.toContain('server/cli/benchBundle.js');
    expect(loaded).toContain('server/cli/bench.js');
    expect(loaded).toContain('server/engine/engine.js');
  });
});

/**
 * Preloaded into a child: at exit, says whether undici was initialised (loading it sets its global dispatcher).
 * Its initialisation, with the compiling of its WebAssembly HTTP parser, was ~0.3 s of every run's CPU.
 */
const UNDICI_PROBE =
  // No spaces: NODE_OPTIONS is split on them.
  "--import=data:text/javascript,process.on('exit',()=>process.stderr.write('[undici-loaded:'+" +
  "(globalThis[Symbol.for('undici.globalDispatcher.1')]!==undefined)+']'))";
const withProbe = (env: Record<string, string> = {}) => ({
  ...env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${UNDICI_PROBE}`.trim(),
});

describe('a plain run never loads undici (only reporting, downloading and transcribing do)', () => {
  it('the probe sees undici when a process loads it', () => {
    const r = spawnSync(process.execPath, ['-e', "require('undici')"], {
      cwd: REPO,
      env: { ...process.env, ...withProbe() },
    });
    expect(String(r.stderr)).toContain('[undici-loaded:true]');
  });

  it.each([
    ['from the bundle', {}],
    ['from the per-file modules', { STALLSCOPE_UNBUNDLED: '1' }],
  ])('%s: the identity read and the run use Node and the run client alone', async (_, env) => {
    server ??= await startSseServer(() => ({ kind: 'ok', tokens: 3 }), {
      getRoutes: { '/v1/models': { data: [{ id: 'm' }] }, '/version': { version: '0.11.0' } },
    });
    const args = ['--base-url', server.url, '--model', 'm', '--num-prompts', '3', '--disable-tqdm'];
    const r = await runBenchChild(args, withProbe(env)).done;
    expect(r.code).toBe(0);
    expect(server.gets.map((g) => g.path)).toContain('/version'); // the identity was read
    expect(r.stderr).toContain('[undici-loaded:false]');
  });
});
