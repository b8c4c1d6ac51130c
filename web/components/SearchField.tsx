/** A labelled search input: the filter bars' text fields. */
export function SearchField({
  label,
  value,
  onChange,
  placeholder,
  testId,
}: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  placeholder: string;
  testId?: string;
}) {
  return (
    <label>
      {label}{' '}
      <input
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        data-testid={testId}
      />
    </label>
  );
}
