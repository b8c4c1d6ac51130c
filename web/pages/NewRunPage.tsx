/**
 * New run: pick a preset, adjust any RunSpec field (grouped), see the
 * schema's verdict beside each field as you type (the same `runSpecIssues`
 * the server runs), submit, land on the live view. A server 400 is shown
 * beside its field too; nothing starts while an error remains.
 */
import { useEffect, useMemo, useState } from 'react';
import { runSpecIssues, type Preset, type RunSpec, type SpecIssue } from '../../shared/schemas.ts';
import { ApiError, getPresets, startRun } from '../api/rest.ts';
import { fieldId, FormContext } from '../components/form/Fields.tsx';
import { setPath } from '../components/form/paths.ts';
import { ErrorState, Loading } from '../components/States.tsx';
import { navigate } from '../state/router.ts';
import { RunFormGroups } from './RunFormGroups.tsx';

export function NewRunPage() {
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [presetId, setPresetId] = useState<string>('');
  const [spec, setSpec] = useState<unknown>(null);
  const [serverIssues, setServerIssues] = useState<SpecIssue[]>([]);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);

  const load = () => {
    setLoadError(null);
    getPresets()
      .then((p) => {
        setPresets(p);
        if (p[0]) {
          setPresetId(p[0].id);
          setSpec(structuredClone(p[0].spec));
        }
      })
      .catch(setLoadError);
  };
  useEffect(load, []);

  const issues = useMemo(() => (spec === null ? [] : [...runSpecIssues(spec), ...serverIssues]), [spec, serverIssues]);
  const errors = issues.filter((i) => i.severity === 'error');

  if (loadError) return <ErrorState error={loadError} retry={load} />;
  if (!presets || spec === null) return <Loading what="presets" />;

  const set = (path: string, v: unknown) => {
    setServerIssues([]);
    setSubmitError(null);
    setSpec((s: unknown) => setPath(s, path, v));
  };
  const pick = (id: string) => {
    const p = presets.find((x) => x.id === id);
    if (!p) return;
    setPresetId(id);
    setServerIssues([]);
    setSpec(structuredClone(p.spec));
  };

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
      {(tried || serverIssues.length > 0) && errors.length > 0 && (
        <div className="form-errors" role="alert" data-testid="form-errors">
          <strong>Fix {errors.length === 1 ? 'this field' : `these ${errors.length} fields`} before starting:</strong>
          <ul>
            {errors.map((i, n) => (
              <li key={n}>
                <a
                  href={`#${fieldId(i.field)}`}
                  onClick={(e) => {
                    e.preventDefault();
                    document.getElementById(fieldId(i.field))?.focus();
                  }}
                >
                  {i.field}
                </a>{' '}
                {i.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {submitError && (
        <p className="err" role="alert">
          {submitError}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy} data-testid="start-run">
          {busy ? 'Starting…' : 'Start run'}
        </button>
        <button type="button" onClick={() => pick(presetId)} data-testid="reset-preset">
          Reset to preset
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
