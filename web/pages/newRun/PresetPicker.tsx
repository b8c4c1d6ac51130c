/** The preset radio group: choosing one puts it in the URL, which resets the form to its spec. */
import type { Preset } from '../../../shared/config/runSpec.ts';
import { navigate } from '../../state/router.ts';

export function PresetPicker({ presets, presetId }: { presets: readonly Preset[]; presetId: string }) {
  const pick = (id: string) => navigate({ page: 'new', preset: id });
  return (
    <fieldset className="presets">
      <legend>Preset</legend>
      {presets.map((p) => (
        <label key={p.id} className={`preset${p.id === presetId ? ' chosen' : ''}`}>
          <input
            type="radio"
            name="preset"
            value={p.id}
            checked={p.id === presetId}
            onChange={() => pick(p.id)}
            data-testid={`preset-${p.id}`}
          />
          <span>
            <strong>{p.title}</strong>
            <small>{p.description}</small>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
