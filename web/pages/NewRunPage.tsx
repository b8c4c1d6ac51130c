/**
 * New run: start from Custom (the schema's blank defaults) or a preset (the
 * choice is in the URL, `#/new?preset=…`), adjust any RunSpec field
 * (grouped), see the verdict beside each field as you type (the same
 * `runSpecIssues` the server runs), submit from the sticky action bar, land
 * on the live view. A server 400 is shown beside its field too; nothing
 * starts while an error remains.
 */
import { useEffect, useMemo, useState } from 'react';
import { runSpecIssues, type Preset, type RunSpec, type SpecIssue } from '../../shared/schemas.ts';
import { ApiError, getPresets, startRun } from '../api/rest.ts';
import { fieldId, FormContext } from '../components/form/Fields.tsx';
import { setPath } from '../components/form/paths.ts';
import { ErrorState, Loading } from '../components/States.tsx';
import { CUSTOM } from '../state/customPreset.ts';
import { navigate } from '../state/router.ts';
import { ErrorSummary } from './ErrorSummary.tsx';
import { RunFormGroups } from './RunFormGroups.tsx';

export function NewRunPage({ preset }: { preset?: string }) {
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [spec, setSpec] = useState<unknown>(null);
  const [serverIssues, setServerIssues] = useState<SpecIssue[]>([]);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);

  const load = () => {
    getPresets().then((p) => {
      setLoadError(null);
      setPresets([CUSTOM, ...p]);
    }, setLoadError);
  };
  useEffect(load, []);

  // The URL names the choice; an unknown name falls back to Custom.
  const chosen = presets?.find((p) => p.id === (preset ?? CUSTOM.id)) ?? (presets ? CUSTOM : null);
  const presetId = chosen?.id ?? CUSTOM.id;
  const reset = () => {
    if (!chosen) return;
    setServerIssues([]);
    setSubmitError(null);
    setTried(false);
    setSpec(structuredClone(chosen.spec));
  };
  // A new choice (a click, Back, a pasted link) starts from that preset's spec (adjusted while
  // rendering, as React advises for state that follows a prop, not in an effect).
  const [shownFor, setShownFor] = useState<Preset | null>(null);
  if (chosen && chosen !== shownFor) {
    setShownFor(chosen);
    reset();
  }

  const issues = useMemo(() => (spec === null ? [] : [...runSpecIssues(spec), ...serverIssues]), [spec, serverIssues]);
  const errors = issues.filter((i) => i.severity === 'error');

  if (loadError) return <ErrorState error={loadError} retry={load} />;
  if (!presets || spec === null) return <Loading what="presets" />;

  const set = (path: string, v: unknown) => {
    setServerIssues([]);
    setSubmitError(null);
    setSpec((s: unknown) => setPath(s, path, v));
  };
  const pick = (id: string) => navigate({ page: 'new', preset: id });

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setTried(true);
    if (errors.length > 0) {
      document.getElementById(fieldId(errors[0].field))?.focus();
      return;
    }
    setBusy(true);
    try {
      const { id } = await startRun(spec as RunSpec);
      navigate({ page: 'run', id });
    } catch (err) {
      if (err instanceof ApiError && (err.issues.length || err.field)) {
        setServerIssues(
          err.issues.length ? err.issues : [{ field: err.field!, message: err.message, severity: 'error' }],
        );
      } else setSubmitError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-run" onSubmit={submit} noValidate data-testid="new-run-form">
      <h1>New run</h1>
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
      <FormContext.Provider value={{ value: spec, set, issues }}>
        <RunFormGroups spec={spec as RunSpec} />
      </FormContext.Provider>
      {(tried || serverIssues.length > 0) && errors.length > 0 && <ErrorSummary errors={errors} />}
      {submitError && (
        <p className="err" role="alert">
          {submitError}
        </p>
      )}
      <div className="actions sticky-actions" data-testid="form-actions">
        <button type="submit" className="primary" disabled={busy} data-testid="start-run">
          {busy ? 'Starting…' : 'Start run'}
        </button>
        <button type="button" onClick={reset} data-testid="reset-preset">
          {presetId === CUSTOM.id ? 'Reset to defaults' : 'Reset to preset'}
        </button>
        {errors.length > 0 && (
          <span className="field-error">
            {errors.length} error{errors.length > 1 ? 's' : ''}
          </span>
        )}
      </div>
    </form>
  );
}
