/**
 * The list of fields to fix before starting, each named by its label as the
 * form shows it (read from the rendered <label>, so there is one source of
 * labels: the fields themselves) and linked to its input.
 */
import { useLayoutEffect, useState } from 'react';
import type { SpecIssue } from '../../shared/schemas.ts';
import { fieldId } from '../components/form/Fields.tsx';

export function ErrorSummary({ errors }: { errors: readonly SpecIssue[] }) {
  const [labels, setLabels] = useState<Record<string, string>>({});
  const key = errors.map((e) => e.field).join('\n');
  useLayoutEffect(() => {
    const found: Record<string, string> = {};
    for (const e of errors) {
      const text = document.querySelector(`label[for="${fieldId(e.field)}"]`)?.textContent;
      if (text) found[e.field] = text;
    }
    setLabels(found);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
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
              {labels[i.field] ?? i.field}
            </a>{' '}
            {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
