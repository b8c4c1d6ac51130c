/**
 * The new-run form's state: the presets (Custom first), the spec being
 * edited (reset from the chosen preset whenever the choice changes), its
 * issues as you type plus the server's on a refused start, and the submit.
 */
import { useEffect, useMemo, useState } from 'react';
import { runSpecIssues, type Preset, type RunSpec, type SpecIssue } from '../../../shared/config/runSpec.ts';
import { ApiError, getPresets, startRun } from '../../api/rest.ts';
import { focusFirstError } from '../../components/form/focusField.ts';
import { setPath } from '../../components/form/paths.ts';
import { CUSTOM } from '../../state/customPreset.ts';
import { navigate } from '../../state/router.ts';
import { switchTarget, type KeptTargets, type TargetKind } from '../../state/targetSwitch.ts';

/** A refused start as issues beside their fields, when the server named any. */
function serverIssuesOf(err: unknown): SpecIssue[] | null {
  if (!(err instanceof ApiError) || !(err.issues.length || err.field)) return null;
  return err.issues.length ? err.issues : [{ field: err.field!, message: err.message, severity: 'error' }];
}

export function useNewRunForm(preset: string | undefined) {
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [spec, setSpec] = useState<unknown>(null);
  const [serverIssues, setServerIssues] = useState<SpecIssue[]>([]);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  // Each target kind's last target, so switching to a URL and back restores the preset's faults (web/state/targetSwitch.ts).
  const [keptTargets, setKeptTargets] = useState<KeptTargets>({});

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
    setKeptTargets({});
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

  const set = (path: string, v: unknown) => {
    setServerIssues([]);
    setSubmitError(null);
    setSpec((s: unknown) => setPath(s, path, v));
  };

  const pickTarget = (kind: TargetKind) => {
    const r = switchTarget((spec as { target?: unknown } | null)?.target, kind, keptTargets);
    setKeptTargets(r.kept);
    set('target', r.target);
  };

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setTried(true);
    if (errors.length > 0) {
      focusFirstError(e.currentTarget, errors[0].field);
      return;
    }
    setBusy(true);
    try {
      const { id } = await startRun(spec as RunSpec);
      navigate({ page: 'run', id });
    } catch (err) {
      const named = serverIssuesOf(err);
      if (named) setServerIssues(named);
      else setSubmitError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  /** The error summary shows after a first try, or when the server refused a field. */
  const showSummary = (tried || serverIssues.length > 0) && errors.length > 0;
  return {
    presets,
    loadError,
    load,
    spec,
    presetId,
    reset,
    set,
    pickTarget,
    issues,
    errors,
    showSummary,
    submit,
    submitError,
    busy,
  };
}
