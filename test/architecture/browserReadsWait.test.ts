/**
 * Every browser test waits for what it asserts: a count, a text or an attribute read off a page is read
 * through `expect.poll` — one function that polls until a bounded deadline (10 s for the browser tests,
 * vite.config.ts) — never once with `expect(await locator.count())`, which fails when the page has not drawn yet
 * (formTarget's `.fault` count read right after `#f-model` appeared: `expected +0 to be 1` under load).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#test/helpers/tools.ts';

const READS = 'count|textContent|innerText|allTextContents|allInnerTexts|getAttribute|inputValue|isChecked|isVisible';
/** `expect(await <anything>.count())` on one line, or split after `expect(` by the formatter. */
const ONCE = new RegExp(`expect\\(\\s*await [^;]*?\\.(${READS})\\([^)]*\\)\\s*\\)\\s*\\.`, 'g');

describe('browser tests read a page by polling', () => {
  it('no test/e2e file reads a count, text or attribute once and asserts on it', () => {
    const dir = join(REPO_ROOT, 'test', 'e2e');
    const found: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const m of text.matchAll(ONCE)) {
        const line = text.slice(0, m.index).split('\n').length;
        found.push(`${f}:${line}: ${m[0].replace(/\s+/g, ' ').slice(0, 100)}`);
      }
    }
    expect(found).toEqual([]);
  });
});
