/**
 * Citations of the docs point somewhere, and nothing points at a tracker the
 * repository does not hold.
 *
 * - A citation `docs/design.md#<anchor>` (or any `<path>.md#<anchor>`, and a
 *   Markdown link `](#<anchor>)` inside a .md file) must name a Markdown file
 *   that exists and an anchor it defines: an explicit `<a id="…">` or a
 *   heading's GitHub slug. Continuations such as `docs/design.md#watchdog and
 *   #server-stacks` are checked too. URLs are left alone.
 * - The design contract is cited by anchor, never by a section number or a
 *   section sign: the numbers moved whenever the document grew.
 * - No "issue N" outside test/fixtures: the tracker is not in the repository,
 *   so a comment says the reason instead. Other projects' threads written as
 *   `owner/repo#N` or a URL are fine.
 *
 * This file is scanned like any other: its examples are built from pieces.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SCANNED = [
  'server',
  'shared',
  'web',
  'test',
  'scripts',
  'bin',
  'docs',
  '.ci',
  'README.md',
  'ARCHITECTURE.md',
  'vite.config.ts',
  'eslint.config.js',
  '.dependency-cruiser.cjs',
];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.venv']);
const TEXT = /\.(ts|tsx|mjs|js|cjs|py|md|sh|css|html)$|^(run|setup|pack-check)$/;

function files(path: string): string[] {
  if (!statSync(join(root, path)).isDirectory()) return TEXT.test(path) ? [path] : [];
  let out: string[] = [];
  for (const name of readdirSync(join(root, path))) {
    const rel = join(path, name);
    if (statSync(join(root, rel)).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out = out.concat(files(rel));
    } else if (TEXT.test(name)) out.push(rel);
  }
  return out;
}

/** GitHub's heading slug: inline markup dropped, lower case, punctuation removed, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text defines: explicit ids, and heading slugs (duplicates numbered as GitHub does). */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/\bid="([^"]+)"/g)) out.add(m[1]);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** `<path>.md#<anchor>`, optionally followed by `, #<more>` / `and #<more>`. */
const CITATION = /((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w.-]+\.md)#([\w-]+)((?:(?:,\s*|\s+and\s+)#[\w-]+)*)/g;
const LOCAL_LINK = /\]\(#([\w-]+)\)/g;
const URL = /\b[a-z][a-z+.-]*:\/\/\S+/gi;
/** A section-number citation of the design doc, over a line break in a comment too. */
const SECTION_NUMBER = /design(?:\.md)?(?:'s)?[\s*/#]*(?:sections?[\s*]+\d|§)|§\s*\d/gi;

type ReadAnchors = (file: string) => Set<string> | null;

/** The doc file a citation names, relative to the root: beside the citing file, else from the root, else in docs/. */
function resolveDoc(file: string, cited: string): string | null {
  for (const candidate of [join(dirname(file), cited), cited, join('docs', cited)]) {
    const rel = relative(root, resolve(root, candidate));
    if (!rel.startsWith('..') && existsSync(join(root, rel))) return rel;
  }
  return null;
}

/** Every citation in `text` (held by `file`) whose document or anchor does not exist, and every section number. */
function brokenCitations(file: string, text: string, anchors: ReadAnchors): string[] {
  const bad: string[] = [];
  const plain = text.replace(URL, '');
  for (const m of plain.matchAll(CITATION)) {
    const doc = resolveDoc(file, m[1]);
    const defined = doc ? anchors(doc) : null;
    if (!defined) {
      bad.push(`${file}: ${m[1]} does not exist`);
      continue;
    }
    const names = [m[2], ...[...(m[3] ?? '').matchAll(/#([\w-]+)/g)].map((x) => x[1])];
    for (const name of names) if (!defined.has(name)) bad.push(`${file}: ${doc}#${name} is no anchor`);
  }
  if (file.endsWith('.md')) {
    const own = anchors(file) ?? new Set<string>();
    for (const m of plain.matchAll(LOCAL_LINK)) if (!own.has(m[1])) bad.push(`${file}: #${m[1]} is no anchor`);
  }
  for (const m of plain.matchAll(SECTION_NUMBER))
    bad.push(`${file}: "${m[0].replace(/\s+/g, ' ')}" cites a section number; cite docs/design.md#<topic>`);
  return bad;
}

/** A tracker reference: the word, then a number; `owner/repo#N` and URLs do not match. */
const ISSUE = new RegExp(`\\b${'iss'}ues?\\s+#?\\d+`, 'gi');

function issueReferences(file: string, text: string): string[] {
  return [...text.replace(URL, '').matchAll(ISSUE)].map((m) => `${file}: "${m[0]}"`);
}

const cache = new Map<string, Set<string> | null>();
const readAnchors: ReadAnchors = (doc) => {
  if (!cache.has(doc)) {
    const path = join(root, doc);
    cache.set(doc, doc.endsWith('.md') && existsSync(path) ? anchorsOf(readFileSync(path, 'utf8')) : null);
  }
  return cache.get(doc) ?? null;
};

/** `<name>.md#<anchor>`, built from pieces so that this file cites nothing itself. */
const cite = (name: string, anchor: string): string => `${name}.md${'#'}${anchor}`;

const scanned = SCANNED.filter((p) => existsSync(join(root, p))).flatMap((p) => files(p));

describe('citations of the docs', () => {
  it('every docs/*.md#anchor (and any .md#anchor) names an anchor that exists; none cites a section number', () => {
    const bad = scanned.flatMap((f) => brokenCitations(f, readFileSync(join(root, f), 'utf8'), readAnchors));
    expect(bad).toEqual([]);
  });

  it('the design contract is cited: its topics have anchors that code cites', () => {
    const design = readAnchors('docs/design.md')!;
    for (const topic of ['connections', 'interrupts', 'counting', 'fail-fast-breaker', 'server-stacks'])
      expect(design.has(topic)).toBe(true);
    const citing = scanned.filter(
      (f) => f.startsWith('server/') && readFileSync(join(root, f), 'utf8').includes('docs/design.md#'),
    );
    expect(citing.length).toBeGreaterThan(10);
  });

  it('the scanner catches a made-up anchor, a missing file, a bad continuation and a section number', () => {
    const file = 'server/engine/x.ts';
    expect(brokenCitations(file, `// see ${cite('docs/design', 'connections')}`, readAnchors)).toEqual([]);
    expect(brokenCitations(file, `// see ${cite('docs/design', 'no-such-topic')}`, readAnchors)).toEqual([
      `${file}: ${cite('docs/design', 'no-such-topic')} is no anchor`,
    ]);
    expect(brokenCitations(file, `// see ${cite('docs/nowhere', 'connections')}`, readAnchors)).toEqual([
      `${file}: docs/nowhere.md does not exist`,
    ]);
    expect(brokenCitations(file, `// (${cite('docs/design', 'watchdog')} and #nope)`, readAnchors)).toEqual([
      `${file}: ${cite('docs/design', 'nope')} is no anchor`,
    ]);
    const design = ['docs', 'design.md'].join('/');
    expect(brokenCitations(file, `/* (${design} section\n * 4a) */`, readAnchors)).toHaveLength(1);
    expect(brokenCitations(file, `// (${design} ${'§'}4a)`, readAnchors)).toHaveLength(1);
    expect(brokenCitations(file, `// ${'§'}5`, readAnchors)).toHaveLength(1);
    // A URL is not a citation of ours.
    expect(
      brokenCitations(file, `// https://github.com/a/b/blob/main/${cite('README', 'whatever')}`, readAnchors),
    ).toEqual([]);
  });

  it('a Markdown file links only to its own anchors; a relative link resolves beside it', () => {
    const design = readFileSync(join(root, 'docs/design.md'), 'utf8');
    expect(brokenCitations('docs/design.md', `${design}\nSee [x](${'#'}nowhere).`, readAnchors)).toEqual([
      'docs/design.md: #nowhere is no anchor',
    ]);
    expect(brokenCitations('docs/design.md', `[m](${cite('../ARCHITECTURE', 'import-rules')})`, readAnchors)).toEqual(
      [],
    );
    expect(brokenCitations('docs/design.md', `[m](${cite('../ARCHITECTURE', 'nope')})`, readAnchors)).toEqual([
      `docs/design.md: ${cite('ARCHITECTURE', 'nope')} is no anchor`,
    ]);
  });

  it('slugs and explicit ids are anchors; headings in code fences are not', () => {
    const md = [
      '# The reproduction server: `stallscope repro-server`',
      '<a id="x-y"></a>',
      '## A',
      '## A',
      '```',
      '# not',
      '```',
    ].join('\n');
    expect([...anchorsOf(md)].sort()).toEqual(['a', 'a-1', 'the-reproduction-server-stallscope-repro-server', 'x-y']);
  });
});

describe('no tracker references', () => {
  it('no "issue N" in code, tests or docs (test/fixtures aside)', () => {
    const bad = scanned
      .filter((f) => !f.startsWith('test/fixtures/'))
      .flatMap((f) => issueReferences(f, readFileSync(join(root, f), 'utf8')));
    expect(bad).toEqual([]);
  });

  it('the check catches "issue N" and leaves other projects\' threads alone', () => {
    const word = 'iss' + 'ue';
    expect(issueReferences('a.ts', `// bounded (${word} 12)`)).toEqual([`a.ts: "${word} 12"`]);
    expect(issueReferences('a.ts', `// ${word.toUpperCase()} 7 in a browser`)).toHaveLength(1);
    expect(issueReferences('a.ts', `// ${word}s 3 and 4`)).toHaveLength(1);
    expect(issueReferences('a.ts', '// vllm-project/vllm#1234')).toEqual([]);
    expect(issueReferences('a.ts', `// https://github.com/a/b/${word}s/12`)).toEqual([]);
  });
});
