/**
 * The list of fields to fix before starting, each named by its label as the
 * form shows it (read from the rendered <label>, so the fields themselves stay
 * the one source of labels) and linked to its input.
 */
import { useSyncExternalStore } from 'react';
import type { SpecIssue } from '../../../shared/config/runSpec.ts';
import { fieldId } from '../../components/form/Fields.tsx';
import { labelled } from '../../components/form/paths.ts';
import { focusField } from '../../components/form/focusField.ts';

// A label does not change while its field is on screen; the summary re-reads it whenever it redraws.
const noSubscription = () => () => {};

function useFieldLabel(field: string): string {
  const text = useSyncExternalStore(
    noSubscription,
    () => document.querySelector(`label[for="${fieldId(field)}"]`)?.textContent ?? null,
  );
  return text ?? field;
}

/** One line of the summary: the field's label (a link to it) and what is wrong. */
function IssueLine({ issue }: { issue: SpecIssue }) {
  const label = useFieldLabel(issue.field);
  const rest = labelled(label, issue.message).slice(label.length);
  return (
    <li>
      <a
        href={`#${fieldId(issue.field)}`}
        onClick={(e) => {
          e.preventDefault();
          focusField(issue.field);
        }}
      >
        {label}
      </a>
      {rest}
    </li>
  );
}

export function ErrorSummary({ errors }: { errors: readonly SpecIssue[] }) {
  return (
    <div className="form-errors" role="alert" data-testid="form-errors">
      <strong>Fix {errors.length === 1 ? 'this field' : `these ${errors.length} fields`} before starting:</strong>
      <ul>
        {errors.map((i, n) => (
          <IssueLine key={n} issue={i} />
        ))}
      </ul>
    </div>
  );
}
