/** Loads the configured dataset; errors are StallscopeErrors raised before anything is sent. */
import type { BenchConfig } from '../config.ts';
import { loadRandom } from './random.ts';
import { loadSeedTts } from './seedTts.ts';
import { loadTrace } from './trace.ts';
import type { LoadedDataset } from './sample.ts';

export type { LoadedDataset } from './sample.ts';

export function loadDataset(config: BenchConfig): LoadedDataset {
  const d = config.dataset;
  switch (d.name) {
    case 'random':
      return loadRandom(config.numPrompts, d.inputLen, d.outputLen, d.rangeRatio ?? 0, config.seed);
    case 'seed-tts':
      return loadSeedTts({
        root: d.path,
        locale: d.locale,
        numPrompts: config.numPrompts,
        seed: config.seed,
        noOversample: d.noOversample,
        disableShuffle: d.disableShuffle,
        outputLen: d.outputLen,
        systemPrompt: d.systemPrompt,
        fileRefAudio: d.fileRefAudio,
      });
    case 'trace':
      return loadTrace(d.path, config.numPrompts);
  }
}
