/**
 * New run: start from Custom (the schema's blank defaults) or a preset (the
 * choice is in the URL, `#/new?preset=…`), adjust any RunSpec field
 * (grouped), see the verdict beside each field as you type (the same
 * `runSpecIssues` the server runs), submit from the sticky action bar, land
 * on the live view. A server 400 is shown beside its field too; nothing
 * starts while an error remains.
 */
import type { RunSpec } from '../../shared/config/runSpec.ts';
import { FormContext } from '../components/form/Fields.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { useAllowed } from '../hooks/useScope.ts';
import { ErrorSummary } from './newRun/ErrorSummary.tsx';
import { FormActions } from './newRun/FormActions.tsx';
import { PresetPicker } from './newRun/PresetPicker.tsx';
import { RunFormGroups } from './newRun/RunFormGroups.tsx';
import { useNewRunForm } from './newRun/useNewRunForm.ts';

export function NewRunPage({ preset }: { preset?: string }) {
  const allowed = useAllowed();
  if (!allowed.known) return <Loading what="what this token may do" />;
  if (!allowed.manageRuns)
    return (
      <Empty>
        <span data-testid="no-start-scope">
          Starting a run needs an admin token; this page runs with a token that may only read.
        </span>
      </Empty>
    );
  return <NewRunForm preset={preset} />;
}

function NewRunForm({ preset }: { preset?: string }) {
  const form = useNewRunForm(preset);
  const { presets, spec, errors } = form;
  if (form.loadError) return <ErrorState error={form.loadError} retry={form.load} />;
  if (!presets || spec === null) return <Loading what="presets" />;
  return (
    <form className="new-run" onSubmit={form.submit} noValidate data-testid="new-run-form">
      <h1>New run</h1>
      <PresetPicker presets={presets} presetId={form.presetId} />
      <FormContext.Provider value={{ value: spec, set: form.set, issues: form.issues }}>
        <RunFormGroups spec={spec as RunSpec} pickTarget={form.pickTarget} />
      </FormContext.Provider>
      {form.showSummary && <ErrorSummary errors={errors} />}
      {form.submitError && (
        <p className="err" role="alert">
          {form.submitError}
        </p>
      )}
      <FormActions busy={form.busy} presetId={form.presetId} reset={form.reset} errorCount={errors.length} />
    </form>
  );
}
