/**
 * How much of a server's text a request keeps (docs/design.md#peer-bounds):
 * the generated text (the result's `generated_texts`, what an accuracy gate
 * reads) and an error message are kept up to a documented length, then end
 * with a marker saying how much was dropped. The request table holds every
 * ended request's strings for the whole run, so a server that answers each
 * request with megabytes of text or of error message must not make the run's
 * memory grow by that much per request.
 */

/** Generated text kept per request, in UTF-16 code units: far above any real answer (~250,000 tokens of English). */
export const KEPT_TEXT_CHARS = 1024 * 1024;
/** An error message kept per request (a server's in-stream or realtime `error`, a reason phrase). */
export const KEPT_ERROR_CHARS = 4096;

/** The marker that ends a cut text. */
export function truncationMarker(dropped: number): string {
  return `…[truncated: ${dropped} more characters]`;
}

/** `text` itself when it fits `max`; else its first `max` code units (not splitting a pair) and the marker. */
export function keptText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = cutAt(text, max);
  return text.slice(0, end) + truncationMarker(text.length - end);
}

/** Where to cut `text` to keep at most `max` code units: before a high surrogate that would be left alone. */
function cutAt(text: string, max: number): number {
  if (max <= 0) return 0;
  const c = text.charCodeAt(max - 1);
  return c >= 0xd800 && c <= 0xdbff ? max - 1 : max;
}

/**
 * A text received in pieces (a realtime turn's deltas), kept up to `max` code units: the pieces past it are
 * counted, not held, so the request's memory stays bounded while it streams.
 */
export class KeptTextBuilder {
  private readonly parts: string[] = [];
  private length = 0;
  private dropped = 0;

  constructor(private readonly max: number) {}

  add(piece: string): void {
    const room = this.max - this.length;
    if (room >= piece.length) {
      this.parts.push(piece);
      this.length += piece.length;
      return;
    }
    const kept = cutAt(piece, room);
    if (kept > 0) this.parts.push(piece.slice(0, kept));
    // Full from now on (a pair cut before its high half leaves one unit unused, on purpose).
    this.length = this.max;
    this.dropped += piece.length - kept;
  }

  toString(): string {
    const text = this.parts.join('');
    return this.dropped > 0 ? text + truncationMarker(this.dropped) : text;
  }
}
