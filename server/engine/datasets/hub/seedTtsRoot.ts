/**
 * Where a Seed-TTS `--dataset-path` is read from, as vLLM-Omni's
 * `resolve_seed_tts_root` decides it (docs/design.md#hub-datasets): an
 * existing folder as it is; otherwise a Hub dataset id, read from the
 * Hugging Face cache when `refs/main` there has the locale, else downloaded
 * into that cache (`LOCALE/**` only). Every failure is a StallscopeError
 * before anything is sent, naming the cache folder and the variables.
 */
import { resolve } from 'node:path';
import { StallscopeError } from '../../../../shared/errors.ts';
import { HubError } from './hubApi.ts';
import {
  cachedSnapshot,
  datasetRepoFolder,
  hubCacheDir,
  hubEndpoint,
  hubOffline,
  hubToken,
  isFolder,
  isHubDatasetId,
  type Env,
} from './hubCache.ts';
import { downloadLocale, type DownloadProgress, type HubLimits } from './hubDownload.ts';

export interface SeedTtsRootOptions {
  env: Env;
  log: (line: string) => void;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  limits?: Partial<HubLimits>;
}

const CACHE_RULE = 'the cache folder is HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub';

/** The folder holding `LOCALE/meta.lst` for `path` (a folder or a Hub dataset id). */
export async function resolveSeedTtsRoot(path: string, locale: string, o: SeedTtsRootOptions): Promise<string> {
  if (isFolder(path)) return resolve(path);
  const unreadable = (detail: string): never => {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', detail, 'dataset.path');
  };
  if (!isHubDatasetId(path)) unreadable(`${path} is not a folder, nor a Hub dataset id (ORG/NAME)`);
  const cacheDir = hubCacheDir(o.env);
  const repo = datasetRepoFolder(cacheDir, path);
  const cached = cachedSnapshot(cacheDir, path, locale);
  if (cached) {
    o.log(`Seed-TTS dataset ${path} (${locale}/) from the Hugging Face cache: ${cached}`);
    return cached;
  }
  if (hubOffline(o.env))
    unreadable(
      `${path} is not a folder, and the Hugging Face cache has no ${locale}/meta.lst for it ` +
        `(${repo}: refs/main and its snapshot); HF_HUB_OFFLINE is set, so it is not downloaded. ` +
        `Point HF_HUB_CACHE or HF_HOME at a cache that holds it (${CACHE_RULE}), unset HF_HUB_OFFLINE to download it, ` +
        `or pass a local folder`,
    );
  const endpoint = hubEndpoint(o.env);
  const token = hubToken(o.env);
  try {
    return await downloadLocale({ repoId: path, locale, cacheDir, endpoint, token, ...o });
  } catch (e) {
    const detail = o.signal?.aborted
      ? `the download of ${path} from ${endpoint} was interrupted; what was complete stays in ${repo}`
      : downloadFailure(e, path, endpoint, token, repo);
    throw new StallscopeError('CONFIG_DATASET_DOWNLOAD', detail, 'dataset.path');
  }
}

/** What went wrong, in words, with what to change. */
function downloadFailure(e: unknown, id: string, endpoint: string, token: string | null, repo: string): string {
  const status = e instanceof HubError ? e.status : undefined;
  const err = e as Error & { cause?: Error };
  const what = `${err.message}${err.cause?.message ? `: ${err.cause.message}` : ''}`;
  if (status === 401 || status === 403)
    return token
      ? `${endpoint} refused the token (HF_TOKEN) for dataset ${id} (HTTP ${status})`
      : `${endpoint} answered HTTP ${status} for dataset ${id}: it does not exist, or it is private or gated ` +
          `and needs a token; set HF_TOKEN`;
  if (status === 404) return `${endpoint}: ${what}`;
  return (
    `${id} from ${endpoint}: ${what}. Nothing half-downloaded is kept in ${repo}; HF_ENDPOINT names a mirror, ` +
    `and with the files in the cache (${CACHE_RULE}) HF_HUB_OFFLINE=1 runs without the network`
  );
}
