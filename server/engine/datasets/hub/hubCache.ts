/**
 * The Hugging Face cache as the Python library (huggingface_hub) lays it
 * out, so a node that ran vLLM-Omni's job already holds what stallscope
 * reads, and what stallscope downloads is what Python would find
 * (docs/design.md#hub-datasets):
 *
 *   $HF_HUB_CACHE (else $HF_HOME/hub, else ~/.cache/huggingface/hub)
 *     datasets--ORG--NAME/
 *       refs/main                 the commit main pointed at when it was fetched
 *       blobs/ETAG                each file once (the LFS sha256, or the git blob id)
 *       snapshots/COMMIT/PATH     relative symlinks into blobs/
 *
 * The environment is read as huggingface_hub reads it: HF_HUB_CACHE (or the
 * older HUGGINGFACE_HUB_CACHE), HF_HOME (default $XDG_CACHE_HOME/huggingface),
 * HF_ENDPOINT, HF_TOKEN (or HUGGING_FACE_HUB_TOKEN, or the token file
 * `huggingface-cli login` writes), HF_HUB_OFFLINE (1/ON/YES/TRUE).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { trimTrailingSlashes } from '../../../../shared/text.ts';

export type Env = Record<string, string | undefined>;

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

/** A leading `~` as Python's os.path.expanduser reads it. */
function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : p;
}

function set(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface. */
export function hfHome(env: Env): string {
  return expandHome(set(env.HF_HOME) ?? join(set(env.XDG_CACHE_HOME) ?? join(homedir(), '.cache'), 'huggingface'));
}

/** The hub cache folder: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else HF_HOME/hub. */
export function hubCacheDir(env: Env): string {
  return expandHome(set(env.HF_HUB_CACHE) ?? set(env.HUGGINGFACE_HUB_CACHE) ?? join(hfHome(env), 'hub'));
}

export function hubEndpoint(env: Env): string {
  return trimTrailingSlashes(set(env.HF_ENDPOINT) ?? DEFAULT_HUB_ENDPOINT);
}

/** HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) set to 1, ON, YES or TRUE, any case. */
export function hubOffline(env: Env): boolean {
  const v = set(env.HF_HUB_OFFLINE) ?? set(env.TRANSFORMERS_OFFLINE) ?? '';
  return ['1', 'ON', 'YES', 'TRUE'].includes(v.trim().toUpperCase());
}

/** HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the token file (HF_TOKEN_PATH, default HF_HOME/token). */
export function hubToken(env: Env): string | null {
  const fromEnv = set(env.HF_TOKEN) ?? set(env.HUGGING_FACE_HUB_TOKEN);
  if (fromEnv) return fromEnv.trim();
  const file = expandHome(set(env.HF_TOKEN_PATH) ?? join(hfHome(env), 'token'));
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * A Hub dataset id as stallscope takes one: ORG/NAME, each part of letters,
 * digits, `-`, `_` and `.` (as huggingface_hub validates ids: at most 96
 * characters a part, no `--` or `..`, not starting or ending with `-` or `.`).
 * A bare NAME is not taken: it is more likely a mistyped folder.
 */
export function isHubDatasetId(s: string): boolean {
  const parts = s.split('/');
  if (parts.length !== 2 || s.includes('--') || s.includes('..')) return false;
  return parts.every((p) => /^[\w.-]{1,96}$/.test(p) && !/^[-.]|[-.]$/.test(p));
}

/** `datasets--ORG--NAME` under the cache folder. */
export function datasetRepoFolder(cacheDir: string, repoId: string): string {
  return join(cacheDir, `datasets--${repoId.split('/').join('--')}`);
}

export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const COMMIT_HASH = /^[0-9a-f]{40}$/;

/**
 * The snapshot folder that `refs/main` points at, when it holds the locale's
 * `meta.lst` (files a download adds last: see hubDownload.ts); else null.
 */
export function cachedSnapshot(cacheDir: string, repoId: string, locale: string): string | null {
  const repo = datasetRepoFolder(cacheDir, repoId);
  let commit: string;
  try {
    commit = readFileSync(join(repo, 'refs', 'main'), 'utf8').trim();
  } catch {
    return null;
  }
  if (!COMMIT_HASH.test(commit)) return null;
  const snapshot = join(repo, 'snapshots', commit);
  const meta = join(snapshot, locale, 'meta.lst');
  try {
    return existsSync(meta) && statSync(meta).isFile() ? snapshot : null;
  } catch {
    return null;
  }
}
