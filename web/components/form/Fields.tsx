/**
 * Form fields bound to a dotted path of the spec being edited. Each shows the
 * schema's (or the server's) message for its path right beside it, linked
 * with aria-describedby, so the error is read out with the field.
 */
import { createContext, useContext, useState, type ReactNode } from 'react';
import type { SpecIssue } from '../../../shared/config/runSpec.ts';
import { getPath, labelled, parseNumberInput } from './paths.ts';

export interface FormApi {
  value: unknown;
  set(path: string, v: unknown): void;
  issues: readonly SpecIssue[];
}

export const FormContext = createContext<FormApi | null>(null);
const useForm = () => useContext(FormContext)!;

export const fieldId = (path: string) => `f-${path.replace(/\./g, '-')}`;

/** A value as an input's text: what the user typed (text, a number), else empty. */
const asText = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export function Field({
  path,
  label,
  hint,
  children,
  wide,
}: {
  path: string;
  label: string;
  hint?: string;
  children: ReactNode;
  wide?: boolean;
}) {
  const { issues } = useForm();
  const mine = issues.filter((i) => i.field === path);
  const err = mine.find((i) => i.severity === 'error');
  const warn = mine.find((i) => i.severity === 'warning');
  return (
    <div
      className={`field${err ? ' has-error' : ''}${warn ? ' has-warning' : ''}${wide ? ' wide' : ''}`}
      data-field={path}
    >
      <label htmlFor={fieldId(path)}>{label}</label>
      {children}
      {hint && !err && <small className="hint">{hint}</small>}
      {err && (
        <small className="field-error" id={`${fieldId(path)}-msg`} role="alert" data-testid={`error-${path}`}>
          {labelled(label, err.message)}
        </small>
      )}
      {warn && (
        <small className="field-warning" id={`${fieldId(path)}-warn`} data-testid={`warning-${path}`}>
          {warn.message}
        </small>
      )}
    </div>
  );
}

function describedBy(issues: readonly SpecIssue[], path: string): string | undefined {
  const mine = issues.filter((i) => i.field === path);
  if (!mine.length) return undefined;
  return mine.map((i) => `${fieldId(path)}-${i.severity === 'error' ? 'msg' : 'warn'}`).join(' ');
}

export function TextField({
  path,
  label,
  hint,
  placeholder,
  optional,
}: {
  path: string;
  label: string;
  hint?: string;
  placeholder?: string;
  optional?: boolean;
}) {
  const f = useForm();
  const v = getPath(f.value, path);
  return (
    <Field path={path} label={label} hint={hint}>
      <input
        id={fieldId(path)}
        type="text"
        value={asText(v)}
        placeholder={placeholder}
        aria-invalid={f.issues.some((i) => i.field === path && i.severity === 'error')}
        aria-describedby={describedBy(f.issues, path)}
        onChange={(e) => f.set(path, optional && e.target.value === '' ? undefined : e.target.value)}
      />
    </Field>
  );
}

/**
 * A number field that keeps what the user typed ("1.", "-") while it is not a
 * number yet; the spec gets the number, or the raw text for the schema to refuse.
 */
export function NumberField({
  path,
  label,
  hint,
  empty = undefined,
  allowText,
}: {
  path: string;
  label: string;
  hint?: string;
  empty?: undefined | null;
  allowText?: string;
}) {
  const f = useForm();
  const v = getPath(f.value, path);
  const shown = asText(v);
  const [raw, setRaw] = useState(shown);
  // Follow outside changes (a preset) but keep what the user is typing (adjusted while rendering).
  const [seen, setSeen] = useState(shown);
  if (seen !== shown) {
    setSeen(shown);
    if (parseNumberInput(raw, empty) !== v && !(allowText && raw.trim() === allowText && v === allowText))
      setRaw(shown);
  }
  return (
    <Field path={path} label={label} hint={hint}>
      <input
        id={fieldId(path)}
        type="text"
        inputMode="decimal"
        value={raw}
        aria-invalid={f.issues.some((i) => i.field === path && i.severity === 'error')}
        aria-describedby={describedBy(f.issues, path)}
        onChange={(e) => {
          setRaw(e.target.value);
          f.set(
            path,
            allowText && e.target.value.trim() === allowText ? allowText : parseNumberInput(e.target.value, empty),
          );
        }}
      />
    </Field>
  );
}

export function CheckField({ path, label, hint }: { path: string; label: string; hint?: string }) {
  const f = useForm();
  return (
    <Field path={path} label={label} hint={hint}>
      <input
        id={fieldId(path)}
        type="checkbox"
        checked={getPath(f.value, path) === true}
        onChange={(e) => f.set(path, e.target.checked)}
      />
    </Field>
  );
}

export function SelectField({
  path,
  label,
  options,
  onPick,
  hint,
}: {
  path: string;
  label: string;
  options: readonly string[];
  onPick?: (v: string) => void;
  hint?: string;
}) {
  const f = useForm();
  const v = getPath(f.value, path);
  const current = typeof v === 'string' ? v : '';
  return (
    <Field path={path} label={label} hint={hint}>
      <select
        id={fieldId(path)}
        value={current}
        onChange={(e) => {
          // Choosing the option already chosen changes nothing: re-picking the target kind must not
          // replace the target (and wipe its watchdog, seed and faults) with a fresh one.
          if (e.target.value === current) return;
          if (onPick) onPick(e.target.value);
          else f.set(path, e.target.value);
        }}
      >
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A textarea whose text is parsed into the value (lists, JSON, key=value lines). */
export function ParsedArea({
  path,
  label,
  hint,
  format,
  parse,
  rows = 3,
  placeholder,
}: {
  path: string;
  label: string;
  hint?: string;
  format: (v: unknown) => string;
  parse: (text: string) => unknown;
  rows?: number;
  /** What to type, shown while the field is empty. */
  placeholder?: string;
}) {
  const f = useForm();
  const v = getPath(f.value, path);
  const [text, setText] = useState(() => format(v));
  // Follow outside changes (a preset) but not our own edits (adjusted while rendering).
  const [seen, setSeen] = useState(v);
  if (seen !== v) {
    setSeen(v);
    if (format(parse(text)) !== format(v)) setText(format(v));
  }
  return (
    <Field path={path} label={label} hint={hint} wide>
      <textarea
        id={fieldId(path)}
        rows={rows}
        value={text}
        placeholder={placeholder}
        aria-describedby={describedBy(f.issues, path)}
        onChange={(e) => {
          setText(e.target.value);
          f.set(path, parse(e.target.value));
        }}
      />
    </Field>
  );
}
