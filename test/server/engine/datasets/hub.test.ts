/**
 * Seed-TTS datasets by Hub id (docs/design.md#hub-datasets): the Hugging
 * Face cache in the Python library's layout, made here (two revisions,
 * `refs/main` at one), and a loopback stand-in for the Hub (HF_ENDPOINT)
 * for the download. Never the real Hub.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { resolveSeedTtsRoot } from '#server/engine/datasets/hub/seedTtsRoot.ts';
import { hubCacheDir } from '#server/engine/datasets/hub/hubCache.ts';
import type { DownloadProgress } from '#server/engine/datasets/hub/hubDownload.ts';
import { loadSeedTts } from '#server/engine/datasets/seedTts.ts';
import { validateBenchConfig } from '#server/engine/run/validate.ts';
import { StallscopeError } from '#shared/errors.ts';
import { startFakeHub, gitBlobId, sha256, type FakeHub, type HubFileSpec } from '#test/helpers/fakeHub.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const REPO = 'zhaochenyang20/seed-tts-eval';
const OLD = 'a'.repeat(40);
const MAIN = 'b'.repeat(40);
const FAST = { attempts: 2, retryDelayMs: 5, idleTimeoutMs: 2000, headersTimeoutMs: 2000, connectTimeoutMs: 2000 };

let dir: string;
let hub: FakeHub | null = null;
const logs: string[] = [];
const log = (l: string): void => void logs.push(l);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-hub-'));
  logs.length = 0;
});
afterEach(async () => {
  await hub?.close();
  hub = null;
  rmSync(dir, { recursive: true, force: true });
});

function wav(seed: number, bytes = 3000): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/** One revision of the dataset in the cache as huggingface_hub leaves it: blobs, and relative links to them. */
function cacheRevision(cache: string, commit: string, files: Record<string, Buffer>): void {
  const repo = join(cache, `datasets--${REPO.replace('/', '--')}`);
  for (const [path, content] of Object.entries(files)) {
    const etag = gitBlobId(content);
    mkdirSync(join(repo, 'blobs'), { recursive: true });
    writeFileSync(join(repo, 'blobs', etag), content);
    const pointer = join(repo, 'snapshots', commit, path);
    mkdirSync(join(pointer, '..'), { recursive: true });
    symlinkSync(relative(dirname(pointer), join(repo, 'blobs', etag)), pointer);
  }
}

function refsMain(cache: string, commit: string): void {
  const refs = join(cache, `datasets--${REPO.replace('/', '--')}`, 'refs');
  mkdirSync(refs, { recursive: true });
  writeFileSync(join(refs, 'main'), commit);
}

const meta = (target: string): Buffer => Buffer.from(`u1|a prompt|prompt-wavs/p1.wav|${target}\n`);

async function refusal(p: Promise<unknown>): Promise<StallscopeError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(StallscopeError);
  return e as StallscopeError;
}

describe('the Hugging Face cache', () => {
  it('reads the locale from the snapshot refs/main points at, not the other revision', async () => {
    const cache = join(dir, 'hub');
    cacheRevision(cache, OLD, { 'en/meta.lst': meta('the old target'), 'en/prompt-wavs/p1.wav': wav(1) });
    cacheRevision(cache, MAIN, { 'en/meta.lst': meta('the main target'), 'en/prompt-wavs/p1.wav': wav(2) });
    refsMain(cache, MAIN);
    // No HF_ENDPOINT server exists: a request would fail the test.
    const env = { HF_HUB_CACHE: cache, HF_ENDPOINT: 'http://127.0.0.1:1' };
    const root = await resolveSeedTtsRoot(REPO, 'en', { env, log });
    expect(root).toBe(join(cache, `datasets--zhaochenyang20--seed-tts-eval`, 'snapshots', MAIN));
    const d = loadSeedTts({ root, locale: 'en', numPrompts: 10, seed: 0, noOversample: true });
    expect(d.samples.map((s) => s.seedTts?.targetText)).toEqual(['the main target']);
    expect(logs.join('\n')).toContain('from the Hugging Face cache');
  });

  it('finds the cache as huggingface_hub does: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME', () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/c', HF_HOME: '/h' })).toBe('/c');
    expect(hubCacheDir({ HF_HOME: '/h', XDG_CACHE_HOME: '/x' })).toBe('/h/hub');
    expect(hubCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/huggingface/hub');
  });

  it('offline, with refs/main at a revision without the locale: refused, naming the cache folder and the variables', async () => {
    const cache = join(dir, 'home', 'hub');
    cacheRevision(cache, OLD, { 'en/meta.lst': meta('old'), 'en/prompt-wavs/p1.wav': wav(1) });
    cacheRevision(cache, MAIN, { 'zh/meta.lst': meta('只有中文') });
    refsMain(cache, MAIN);
    const e = await refusal(
      resolveSeedTtsRoot(REPO, 'en', { env: { HF_HOME: join(dir, 'home'), HF_HUB_OFFLINE: '1' }, log }),
    );
    expect(e.code).toBe('CONFIG_DATASET_UNREADABLE');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(join(cache, 'datasets--zhaochenyang20--seed-tts-eval'));
    for (const v of ['HF_HUB_CACHE', 'HF_HOME', 'HF_HUB_OFFLINE']) expect(e.message).toContain(v);
  });

  it('offline and missing: refused before any request', async () => {
    hub = await startFakeHub({ repoId: REPO, commit: MAIN, files: { 'en/meta.lst': { content: meta('x') } } });
    const env = { HF_HUB_CACHE: join(dir, 'empty'), HF_HUB_OFFLINE: 'true', HF_ENDPOINT: hub.url };
    const e = await refusal(resolveSeedTtsRoot(REPO, 'en', { env, log }));
    expect(e.message).toMatch(/not downloaded/);
    expect(hub.requests).toEqual([]);
  });

  it('a path that is neither a folder nor ORG/NAME is refused by the validation, before anything is sent', () => {
    const seedTts = (path: string) =>
      testBenchConfig('http://127.0.0.1:1', { dataset: { name: 'seed-tts', path, locale: 'en', noOversample: true } });
    expect(() => validateBenchConfig(seedTts('./no-such-folder'))).toThrow(/not a folder, nor a Hub dataset id/);
    expect(() => validateBenchConfig(seedTts(REPO))).not.toThrow();
  });
});

describe('downloading LOCALE/** into the cache (a loopback Hub)', () => {
  const files = (): Record<string, HubFileSpec> => ({
    'en/meta.lst': { content: Buffer.from('u1|p|prompt-wavs/p1.wav|first\nu2|p|prompt-wavs/p2.wav|second\n') },
    'en/prompt-wavs/p1.wav': { content: wav(1, 40_000), lfs: true },
    'en/prompt-wavs/p2.wav': { content: wav(2, 50_000), lfs: true },
    'zh/meta.lst': { content: Buffer.from('z|p|prompt-wavs/z.wav|中文\n') },
    'zh/prompt-wavs/z.wav': { content: wav(3, 90_000), lfs: true },
  });

  it("takes only en/, in the Python library's layout, with the token for the Hub and not for its storage", async () => {
    hub = await startFakeHub({ repoId: REPO, commit: MAIN, files: files(), token: 'hf_test', pageSize: 2 });
    const cache = join(dir, 'hub');
    const env = { HF_HUB_CACHE: cache, HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_test' };
    const progress: DownloadProgress[] = [];
    const root = await resolveSeedTtsRoot(REPO, 'en', { env, log, onProgress: (p) => progress.push(p), limits: FAST });

    const repo = join(cache, 'datasets--zhaochenyang20--seed-tts-eval');
    expect(root).toBe(join(repo, 'snapshots', MAIN));
    expect(readFileSync(join(repo, 'refs', 'main'), 'utf8')).toBe(MAIN);
    const f = files();
    expect(readdirSync(join(repo, 'blobs')).sort()).toEqual(
      [
        gitBlobId(f['en/meta.lst'].content),
        sha256(f['en/prompt-wavs/p1.wav'].content),
        sha256(f['en/prompt-wavs/p2.wav'].content),
      ].sort(),
    );
    // A relative link into blobs/, as huggingface_hub makes it (a moved cache still works).
    const p1 = join(root, 'en', 'prompt-wavs', 'p1.wav');
    expect(readlinkSync(p1)).toBe(
      relative(dirname(p1), join(repo, 'blobs', sha256(f['en/prompt-wavs/p1.wav'].content))),
    );
    expect(readFileSync(join(root, 'en', 'prompt-wavs', 'p2.wav'))).toEqual(f['en/prompt-wavs/p2.wav'].content);
    expect(existsSync(join(root, 'zh'))).toBe(false);
    expect(hub.requests.some((r) => /\/zh(\/|%2F|\?|$)/.test(r.path))).toBe(false);
    expect(hub.requests.filter((r) => r.path.includes('/tree/')).length).toBe(2); // 4 entries (a folder, 3 files), 2 a page
    expect(hub.requests.filter((r) => r.server === 'hub').every((r) => r.authorization === 'Bearer hf_test')).toBe(
      true,
    );
    const storage = hub.requests.filter((r) => r.server === 'storage');
    expect(storage.length).toBe(2);
    expect(storage.every((r) => r.authorization === undefined)).toBe(true);
    expect(progress.at(-1)).toMatchObject({
      files: 3,
      filesDone: 3,
      bytes: 90_000 + f['en/meta.lst'].content.length,
      done: true,
    });
    expect(progress.at(-1)!.bytesDone).toBe(progress.at(-1)!.bytes);

    const d = loadSeedTts({ root, locale: 'en', numPrompts: 10, seed: 0, noOversample: true, disableShuffle: true });
    expect(d.samples.map((s) => s.seedTts?.targetText)).toEqual(['first', 'second']);

    // The next run reads the cache: not one request.
    const before = hub.requests.length;
    expect(await resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST })).toBe(root);
    expect(hub.requests.length).toBe(before);
  });

  it("sends the token only to HF_ENDPOINT's origin: not to another origin a listing's Link names", async () => {
    hub = await startFakeHub({
      repoId: REPO,
      commit: MAIN,
      files: files(),
      token: 'hf_test',
      pageSize: 2,
      nextElsewhere: true,
    });
    const env = { HF_HUB_CACHE: join(dir, 'hub'), HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_test' };
    const root = await resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST });
    expect(readFileSync(join(root, 'en', 'prompt-wavs', 'p2.wav'))).toEqual(files()['en/prompt-wavs/p2.wav'].content);
    // The second page of the listing was read from the other origin, without the token.
    const elsewhere = hub.requests.filter((r) => r.server === 'storage' && r.path.includes('/tree/'));
    expect(elsewhere).toHaveLength(1);
    expect(elsewhere[0].authorization).toBeUndefined();
    // The Hub's own origin still gets it.
    const own = hub.requests.filter((r) => r.server === 'hub');
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((r) => r.authorization === 'Bearer hf_test')).toBe(true);
  });

  it('a 401 without a token: refused, saying to set HF_TOKEN', async () => {
    hub = await startFakeHub({ repoId: REPO, commit: MAIN, files: files(), token: 'hf_test' });
    const env = { HF_HUB_CACHE: join(dir, 'hub'), HF_HOME: join(dir, 'nohome'), HF_ENDPOINT: hub.url };
    const e = await refusal(resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST }));
    expect(e.code).toBe('CONFIG_DATASET_DOWNLOAD');
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/HTTP 401 for dataset zhaochenyang20\/seed-tts-eval: .*set HF_TOKEN/);
    expect(hub.requests.length).toBe(1); // not retried
  });

  it('a connection dropped mid-file leaves nothing a later run would trust; the next download completes', async () => {
    hub = await startFakeHub({
      repoId: REPO,
      commit: MAIN,
      files: files(),
      dropMidFile: new Set(['en/prompt-wavs/p2.wav']),
    });
    const cache = join(dir, 'hub');
    const env = { HF_HUB_CACHE: cache, HF_ENDPOINT: hub.url };
    const e = await refusal(resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST }));
    expect(e.code).toBe('CONFIG_DATASET_DOWNLOAD');
    expect(hub.requests.filter((r) => r.path.includes('p2.wav') && r.server === 'storage').length).toBe(2); // tried twice
    const repo = join(cache, 'datasets--zhaochenyang20--seed-tts-eval');
    const p2 = sha256(files()['en/prompt-wavs/p2.wav'].content);
    expect(readdirSync(join(repo, 'blobs')).filter((b) => b.startsWith(p2))).toEqual([]); // no blob, no .incomplete
    expect(existsSync(join(repo, 'snapshots', MAIN, 'en', 'prompt-wavs', 'p2.wav'))).toBe(false);
    expect(existsSync(join(repo, 'snapshots', MAIN, 'en', 'meta.lst'))).toBe(false);
    expect(existsSync(join(repo, 'refs', 'main'))).toBe(false);

    await hub.close();
    hub = await startFakeHub({ repoId: REPO, commit: MAIN, files: files() });
    const root = await resolveSeedTtsRoot(REPO, 'en', { env: { ...env, HF_ENDPOINT: hub.url }, log, limits: FAST });
    expect(readFileSync(join(root, 'en', 'prompt-wavs', 'p2.wav'))).toEqual(files()['en/prompt-wavs/p2.wav'].content);
    // p1.wav came whole the first time: it is not fetched again.
    expect(hub.requests.filter((r) => r.path.includes('p1.wav')).length).toBe(0);
  });

  it('content that does not match its listed id is not kept', async () => {
    hub = await startFakeHub({
      repoId: REPO,
      commit: MAIN,
      files: files(),
      corrupt: new Set(['en/prompt-wavs/p1.wav']),
    });
    const env = { HF_HUB_CACHE: join(dir, 'hub'), HF_ENDPOINT: hub.url };
    const e = await refusal(resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST }));
    expect(e.message).toMatch(/p1\.wav: the content does not match its id/);
    const blobs = join(dir, 'hub', 'datasets--zhaochenyang20--seed-tts-eval', 'blobs');
    expect(readdirSync(blobs).filter((b) => b.startsWith(sha256(files()['en/prompt-wavs/p1.wav'].content)))).toEqual(
      [],
    );
  });

  it('a listed path outside the locale folder is refused before anything is written', async () => {
    const extra = [{ type: 'file', path: 'en/../../../escape', size: 1, oid: 'c'.repeat(40) }];
    hub = await startFakeHub({ repoId: REPO, commit: MAIN, files: files(), extraEntries: extra });
    const env = { HF_HUB_CACHE: join(dir, 'hub'), HF_ENDPOINT: hub.url };
    const e = await refusal(resolveSeedTtsRoot(REPO, 'en', { env, log, limits: FAST }));
    expect(e.message).toMatch(/unsafe path/);
    expect(existsSync(join(dir, 'hub'))).toBe(false);
  });
});
