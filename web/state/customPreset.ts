/**
 * The New-run form's choice that is no preset: every field at the schema's
 * default (the embedded repro server without faults, random prompts), no label and
 * no metadata, so a hand-made run inherits nothing from a preset.
 */
import { withRunSpecDefaults, type Preset, type RunSpec } from '../../shared/config/runSpec.ts';

export const CUSTOM: Preset = {
  id: 'custom',
  title: 'Custom',
  description: 'Blank defaults: the embedded repro server without faults, random prompts, no label or metadata.',
  spec: withRunSpecDefaults({ target: { kind: 'embedded' }, dataset: { name: 'random' } }) as RunSpec,
};
