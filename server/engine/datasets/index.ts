/** Loads the configured dataset; errors are StallscopeErrors raised before anything is sent. */
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import { loadRandom } from './random.ts';
import { loadSeedTts } from './seedTts.ts';
import { loadTrace } from './trace.ts';
import type { LoadedDataset } from './sample.ts';
import { resolveSeedTtsRoot, type SeedTtsRootOptions } from './hub/seedTtsRoot.ts';

export type { LoadedDataset } from './sample.ts';

/** How a Seed-TTS dataset named by its Hub id is found or downloaded (the environment, the log, progress). */
export type DatasetSource = SeedTtsRootOptions;

export async function loadDataset(config: RunConfig, source: DatasetSource): Promise<LoadedDataset> {
  const d = config.workload.dataset;
  switch (d.name) {
    case 'random':
      return loadRandom(config.workload.numPrompts, d.inputLen, d.outputLen, d.rangeRatio ?? 0, config.workload.seed);
    case 'seed-tts':
      return loadSeedTts({
        root: await resolveSeedTtsRoot(d.path, d.locale, source),
        locale: d.locale,
        numPrompts: config.workload.numPrompts,
        seed: config.workload.seed,
        noOversample: d.noOversample,
        disableShuffle: d.disableShuffle,
        outputLen: d.outputLen,
        systemPrompt: d.systemPrompt,
        fileRefAudio: d.fileRefAudio,
      });
    case 'trace':
      return loadTrace(d.path, config.workload.numPrompts);
  }
}
