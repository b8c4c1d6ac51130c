/**
 * The list of fields to fix before starting, each named by its label as the
 * form shows it (read from the rendered <label>, so the fields themselves stay
 * the one source of labels) and linked to its input.
 */
import { useSyncExternalStore } from 'react';
import type { SpecIssue } from '../../shared/schemas.ts';
import { fieldId } from '../components/form/Fields.tsx';

// A label does not change while its field is on screen; the summary re-reads it whenever it redraws.
const noSubscription = () => () => {};

function FieldLabel({ field }: { field: string }) {
  const text = useSyncExternalStore(
    noSubscription,
    () => document.querySelector(`label[for="${fieldId(field)}"]`)?.textContent ?? null,
  );
  return <>{text ?? field}</>;
}

export function ErrorSummary({ errors }: { errors: readonly SpecIssue[] }) {
  return (
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
              <FieldLabel field={i.field} />
            </a>{' '}
            {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
