/**
 * Downloads one locale of a Seed-TTS dataset (`LOCALE/**`, as vLLM-Omni's
 * `snapshot_download(allow_patterns=[f"{locale}/**"])`) into the Hugging
 * Face cache, in the Python library's layout (hubCache.ts), so Python and
 * later runs find it (docs/design.md#hub-datasets).
 *
 * Bounded and atomic: every request has a connect, header and idle deadline;
 * the listing is capped in files and bytes; each file is streamed to
 * `blobs/ETAG.incomplete`, its length and content hash checked against the
 * listing, then renamed into place, and its snapshot link is made under a
 * temporary name and renamed too. A dropped connection leaves no file a
 * later run would trust. The locale's `meta.lst` is linked last and
 * `refs/main` written after it: a cache whose `refs/main` snapshot has the
 * meta.lst has every file a download listed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HubError, listLocale, mainCommit, resolveUrl, type HubContext, type HubFile } from './hubApi.ts';
import { datasetRepoFolder } from './hubCache.ts';
import { loadUndici } from '../../transport/simpleClient.ts';

export interface DownloadProgress {
  repoId: string;
  locale: string;
  files: number;
  filesDone: number;
  bytes: number;
  bytesDone: number;
  /** Set on the last report. */
  done: boolean;
}

export interface HubLimits {
  connectTimeoutMs: number;
  /** Until an answer's headers. */
  headersTimeoutMs: number;
  /** Without a byte of the body. */
  idleTimeoutMs: number;
  maxFiles: number;
  maxBytes: number;
  /** Tries of one file (a dropped connection, a 5xx or 429, a wrong length or hash). */
  attempts: number;
  /** Before the second try; doubled for each next one. */
  retryDelayMs: number;
  /** Files downloaded at once (huggingface_hub's default). */
  parallel: number;
}

export const HUB_LIMITS: HubLimits = {
  connectTimeoutMs: 15_000,
  headersTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  maxFiles: 100_000,
  // The English locale is about 1,100 prompt WAVs; this bounds a wrong id, not the real dataset.
  maxBytes: 32 * 1024 ** 3,
  attempts: 3,
  retryDelayMs: 1000,
  parallel: 8,
};

export interface HubDownloadOptions {
  repoId: string;
  locale: string;
  cacheDir: string;
  endpoint: string;
  token: string | null;
  signal?: AbortSignal;
  log: (line: string) => void;
  onProgress?: (p: DownloadProgress) => void;
  limits?: Partial<HubLimits>;
}

/** Downloads what is missing of `LOCALE/**` at main's commit; returns the snapshot folder. */
export async function downloadLocale(o: HubDownloadOptions): Promise<string> {
  const limits = { ...HUB_LIMITS, ...o.limits };
  // Loaded here, not with the module: every `stallscope bench` imports the dataset code, few runs download.
  const { Agent, interceptors, request } = await loadUndici();
  const dispatcher = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.idleTimeoutMs,
  }).compose(interceptors.redirect({ maxRedirections: 5 }));
  const ctx: HubContext = {
    endpoint: o.endpoint,
    repoId: o.repoId,
    // The redirect interceptor drops Authorization when a redirect leaves the Hub's origin.
    headers: { 'user-agent': 'stallscope', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
    dispatcher,
    request,
    signal: o.signal,
    jsonCap: 64 * 1024 * 1024,
    maxPages: 1000,
  };
  try {
    const commit = await mainCommit(ctx);
    const files = await listLocale(ctx, commit, o.locale);
    const meta = files.find((f) => f.path === `${o.locale}/meta.lst`);
    if (!meta) throw new HubError(`${o.repoId} has no ${o.locale}/meta.lst at commit ${commit}`, 404);
    const bytes = files.reduce((n, f) => n + f.size, 0);
    if (files.length > limits.maxFiles || bytes > limits.maxBytes)
      throw new HubError(
        `${o.locale}/ holds ${files.length} files, ${bytes} bytes: more than the ${limits.maxFiles} files or ${limits.maxBytes} bytes a download takes`,
      );
    const repo = datasetRepoFolder(o.cacheDir, o.repoId);
    const snapshot = join(repo, 'snapshots', commit);
    const progress: DownloadProgress = {
      repoId: o.repoId,
      locale: o.locale,
      files: files.length,
      filesDone: 0,
      bytes,
      bytesDone: 0,
      done: false,
    };
    o.log(`Downloading ${o.locale}/ of ${o.repoId} (${files.length} files, ${mb(bytes)}) into ${repo}`);
    o.onProgress?.({ ...progress });
    const job = { ctx, commit, repo, snapshot, limits, progress, report: () => o.onProgress?.({ ...progress }) };
    const rest = files.filter((f) => f !== meta);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < rest.length) await fetchFile(job, rest[next++]);
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limits.parallel, rest.length)) }, worker));
    await fetchFile(job, meta);
    await writeAtomically(join(repo, 'refs', 'main'), commit);
    o.onProgress?.({ ...progress, done: true });
    return snapshot;
  } finally {
    await dispatcher.destroy();
  }
}

interface Job {
  ctx: HubContext;
  commit: string;
  repo: string;
  snapshot: string;
  limits: HubLimits;
  progress: DownloadProgress;
  report: () => void;
}

/** One file into the cache: its snapshot link, and its blob when the cache lacks it. */
async function fetchFile(job: Job, f: HubFile): Promise<void> {
  const pointer = join(job.snapshot, f.path);
  const blob = join(job.repo, 'blobs', f.etag);
  let downloaded = false;
  if ((await sizeOf(pointer)) !== f.size) {
    if ((await sizeOf(blob)) !== f.size) {
      await downloadBlob(job, f, blob);
      downloaded = true;
    }
    await linkAtomically(blob, pointer);
  }
  // A downloaded file's bytes were counted as they came.
  if (!downloaded) job.progress.bytesDone += f.size;
  job.progress.filesDone++;
  job.report();
}

async function downloadBlob(job: Job, f: HubFile, blob: string): Promise<void> {
  await mkdir(dirname(blob), { recursive: true });
  const tmp = `${blob}.incomplete`;
  const url = resolveUrl(job.ctx, job.commit, f.path);
  for (let attempt = 1; ; attempt++) {
    let counted = 0;
    try {
      await streamTo(job, url, tmp, f, (n) => {
        counted += n;
        job.progress.bytesDone += n;
        job.report();
      });
      await rename(tmp, blob);
      return;
    } catch (e) {
      job.progress.bytesDone -= counted;
      await rm(tmp, { force: true });
      const status = e instanceof HubError ? e.status : undefined;
      const retryable = status === undefined || status >= 500 || status === 429;
      if (!retryable || attempt >= job.limits.attempts || job.ctx.signal?.aborted) throw e;
      await sleep(job.limits.retryDelayMs * 2 ** (attempt - 1), undefined, { signal: job.ctx.signal });
    }
  }
}

/** Streams `url` to `tmp`, checking the length and the content hash the listing gave. */
async function streamTo(job: Job, url: string, tmp: string, f: HubFile, onBytes: (n: number) => void): Promise<void> {
  const { ctx } = job;
  const res = await ctx.request(url, { dispatcher: ctx.dispatcher, headers: ctx.headers, signal: ctx.signal });
  if (res.statusCode !== 200) {
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    throw new HubError(`${f.path}: HTTP ${res.statusCode}`, res.statusCode);
  }
  const hash = createHash(f.hash === 'sha256' ? 'sha256' : 'sha1');
  if (f.hash === 'git-sha1') hash.update(`blob ${f.size}\0`);
  const out = await open(tmp, 'w');
  let n = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      n += chunk.length;
      if (n > f.size) {
        res.body.destroy();
        throw new HubError(`${f.path}: more than the ${f.size} bytes the listing gives`);
      }
      hash.update(chunk);
      await out.write(chunk);
      onBytes(chunk.length);
    }
    await out.sync();
  } finally {
    await out.close();
  }
  if (n !== f.size) throw new HubError(`${f.path}: the answer ended after ${n} of ${f.size} bytes`);
  if (hash.digest('hex') !== f.etag) throw new HubError(`${f.path}: the content does not match its id ${f.etag}`);
}

/** A relative symlink `pointer` → `blob`, as huggingface_hub makes it, created under a temporary name and renamed. */
async function linkAtomically(blob: string, pointer: string): Promise<void> {
  await mkdir(dirname(pointer), { recursive: true });
  const target = relative(dirname(pointer), blob);
  if ((await readlink(pointer).catch(() => null)) === target) return;
  const tmp = `${pointer}.${randomBytes(4).toString('hex')}.tmp`;
  await symlink(target, tmp);
  await rename(tmp, pointer);
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** The size of the file at `path` (following links), or -1. */
async function sizeOf(path: string): Promise<number> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : -1;
  } catch {
    return -1;
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
