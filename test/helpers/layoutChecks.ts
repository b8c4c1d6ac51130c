/**
 * What a page looks like to a person, measured in the browser (playwright-core's `page.evaluate`): what overflows
 * sideways, and the WCAG contrast of text against what is drawn behind it. Reusable by any page's browser test.
 */
import type { Page } from 'playwright-core';

export interface Overflow {
  /** A CSS path of the element: tag, test id or first class. */
  what: string;
  scrollWidth: number;
  clientWidth: number;
}

/**
 * The page's own sideways scroll, and every element matching `selector` whose content is wider than its box
 * (scrolled or cut), 1 px of rounding allowed.
 */
export async function sidewaysOverflow(page: Page, selector = '.table-wrap, table, main'): Promise<Overflow[]> {
  return page.evaluate((sel) => {
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}${el.classList[0] ? `.${el.classList[0]}` : ''}`;
    const out: { what: string; scrollWidth: number; clientWidth: number }[] = [];
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1)
      out.push({ what: 'page', scrollWidth: root.scrollWidth, clientWidth: root.clientWidth });
    for (const el of Array.from(document.querySelectorAll(sel)))
      if (el.scrollWidth > el.clientWidth + 1)
        out.push({ what: name(el), scrollWidth: el.scrollWidth, clientWidth: el.clientWidth });
    return out;
  }, selector);
}

export interface Contrast {
  what: string;
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/**
 * The contrast ratio (WCAG 2.x) of each visible element matching `selector` that holds text: its colour against the
 * background drawn behind it — its own and its ancestors' backgrounds composited (a 15 % tint over the panel is what
 * the eye sees, not the tint alone). Colours are read through a canvas, so `color-mix()` and any colour space resolve
 * to the sRGB the screen shows.
 */
export async function textContrast(page: Page, selector: string): Promise<Contrast[]> {
  return page.evaluate((sel) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
    const rgba = (css: string): [number, number, number, number] => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#000';
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      return [d[0], d[1], d[2], d[3] / 255];
    };
    const over = (top: number[], under: number[]) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
    const lum = (c: number[]) => {
      const [r, g, b] = c.map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const out: { what: string; text: string; ratio: number; color: string; background: string }[] = [];
    for (const el of Array.from(document.querySelectorAll(sel))) {
      const text = (el.textContent ?? '').trim();
      const box = el.getBoundingClientRect();
      if (!text || box.width === 0 || box.height === 0) continue;
      // The backgrounds from the page down to the element, composited.
      const chain: Element[] = [];
      for (let e: Element | null = el; e; e = e.parentElement) chain.unshift(e);
      let bg = [255, 255, 255];
      const pageBg = rgba(getComputedStyle(document.documentElement).backgroundColor);
      if (pageBg[3] === 0) bg = rgba(getComputedStyle(document.body).backgroundColor).slice(0, 3);
      for (const e of chain) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) bg = over(c, bg);
      }
      const st = getComputedStyle(el);
      const fg = over(rgba(st.color), bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out.push({
        what: `${el.tagName.toLowerCase()}.${Array.from(el.classList).join('.')}`,
        text: text.slice(0, 40),
        ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100,
        color: `rgb(${fg.map(Math.round).join(',')})`,
        background: `rgb(${bg.map(Math.round).join(',')})`,
      });
    }
    return out;
  }, selector);
}

/** Elements matching `selector` whose text wraps onto more than one line (a node name broken at a hyphen). */
export async function wrappedText(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    (sel) =>
      Array.from(document.querySelectorAll(sel))
        .filter((el) => {
          const r = document.createRange();
          r.selectNodeContents(el);
          const tops = new Set(Array.from(r.getClientRects()).map((x) => Math.round(x.top)));
          return tops.size > 1;
        })
        .map((el) => (el.textContent ?? '').trim()),
    selector,
  );
}
