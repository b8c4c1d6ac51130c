/**
 * Text for an XML 1.0 document that any JUnit reader parses, whatever a peer put in it: a stack frame, an
 * error message or a label may hold markup, quotes, NULs, escape sequences or lone surrogates. XML 1.0 cannot
 * carry most control characters at all, not even as `&#1;`, so each is written as a visible `\u0001` instead
 * of being dropped: the reader sees that something was there.
 */

/** Characters XML 1.0 allows (#x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD, #x10000–#x10FFFF). */
function allowed(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

const visible = (cp: number): string => `\\u${cp.toString(16).padStart(4, '0')}`;

/** `s` with every character XML 1.0 cannot hold written as `\uXXXX` (a lone surrogate included). */
export function xmlSafeChars(s: string): string {
  let out = '';
  // for…of walks code points: a valid surrogate pair is one character, a lone surrogate is its own.
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += allowed(cp) ? ch : visible(cp);
  }
  return out;
}

/** Element text: markup escaped, `]]>` harmless, disallowed characters made visible. */
export function xmlText(s: string): string {
  return xmlSafeChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * An attribute value (for double quotes): also the quotes, and tabs and line breaks as character references,
 * which a parser keeps (a literal one is normalised to a space).
 */
export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}
