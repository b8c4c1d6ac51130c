/**
 * Bringing a form field to the user: scrolled to the middle of the window
 * (clear of the sticky top bar and the sticky action bar, with its label and
 * its message), then focused without a second scroll.
 */
import { fieldId } from './Fields.tsx';

function reveal(box: Element, input: HTMLElement | null): void {
  box.scrollIntoView({ block: 'center' });
  input?.focus({ preventScroll: true });
}

/** The field at a spec path. */
export function focusField(path: string): void {
  const input = document.getElementById(fieldId(path));
  if (input) reveal(input.closest('.field') ?? input, input);
}

/**
 * The first field in error as the page shows them, top to bottom (the
 * schema's order is not the form's), else the field at `fallback`.
 */
export function focusFirstError(form: ParentNode, fallback: string): void {
  const box = form.querySelector('.field.has-error');
  if (!box) return focusField(fallback);
  reveal(box, box.querySelector<HTMLElement>('input, select, textarea'));
}
