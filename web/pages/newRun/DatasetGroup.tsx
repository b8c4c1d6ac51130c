/** The form's Dataset group: random, Seed-TTS (with the WER gate) or a trace file. */
import { useContext } from 'react';
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { CheckField, FormContext, NumberField, SelectField, TextField } from '../../components/form/Fields.tsx';

/** What a dataset of each name starts from when picked. */
const DATASETS = {
  random: { name: 'random', inputLen: 64, outputLen: 32 },
  'seed-tts': { name: 'seed-tts', path: '', locale: 'en', noOversample: true },
  trace: { name: 'trace', path: '' },
};

export function DatasetGroup({ spec }: { spec: RunSpec }) {
  const f = useContext(FormContext)!;
  return (
    <fieldset className="group">
      <legend>Dataset</legend>
      <SelectField
        path="dataset.name"
        label="Dataset"
        options={['random', 'seed-tts', 'trace']}
        onPick={(k) => f.set('dataset', structuredClone(DATASETS[k as keyof typeof DATASETS]))}
      />
      {spec.dataset?.name === 'random' && (
        <>
          <NumberField path="dataset.inputLen" label="Input length (tokens)" />
          <NumberField path="dataset.outputLen" label="Output length (tokens)" />
        </>
      )}
      {spec.dataset?.name === 'seed-tts' && (
        <>
          <TextField path="dataset.path" label="Seed-TTS directory" hint="holds {locale}/meta.lst" />
          <TextField path="dataset.locale" label="Locale" />
          <CheckField path="dataset.noOversample" label="No oversample" />
          <NumberField path="dataset.outputLen" label="Output length" hint="optional" />
          <CheckField
            path="dataset.werEval.enabled"
            label="WER gate (--seed-tts-wer-eval)"
            hint="transcribe every answer after the run; gate with a threshold on seed_tts_content_error_mean"
          />
          {spec.dataset.werEval?.enabled && (
            <>
              <TextField
                path="dataset.werEval.asrUrl"
                label="ASR server URL"
                hint="OpenAI-compatible; /v1/audio/transcriptions is appended"
              />
              <TextField path="dataset.werEval.asrModel" label="ASR model" hint="default openai/whisper-large-v3" />
              <NumberField path="dataset.werEval.asrConcurrency" label="ASR concurrency" hint="default 4" />
              <CheckField path="dataset.werEval.saveItems" label="Save per-utterance items" />
            </>
          )}
        </>
      )}
      {spec.dataset?.name === 'trace' && <TextField path="dataset.path" label="Trace file (JSONL)" />}
    </fieldset>
  );
}
