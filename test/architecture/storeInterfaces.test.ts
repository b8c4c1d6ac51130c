/**
 * The store's interfaces stay split by who uses them (ARCHITECTURE.md,
 * server/dashboard/store/): no exported interface or type with behaviour — a
 * method or a function-typed member — has more than 15 members, inherited
 * ones counted. Rows and records (a table's columns) have no behaviour and are
 * not counted. Read by the TypeScript compiler over the folder, and over a
 * small fake that breaks the rule, so the check is seen to fire.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const MAX_MEMBERS = 15;
const storeDir = resolve(import.meta.dirname, '../../server/dashboard/store');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** `file: Name (n members)` for each exported interface or type with behaviour and more than MAX_MEMBERS members. */
function oversized(dir: string): string[] {
  const files = tsFiles(dir);
  const program = ts.createProgram(files, {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const exported = checker.getSymbolAtLocation(source)?.exports;
    exported?.forEach((symbol) => {
      const decl = symbol.declarations?.[0];
      if (!decl || !(ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl))) return;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      // Object shapes only: a string union's members would be String's methods, an array's Array's.
      if (!(type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) return;
      if (checker.isArrayType(type) || checker.isTupleType(type)) return;
      const members = checker.getPropertiesOfType(type);
      const behaviour = members.some(
        (m) => checker.getTypeOfSymbolAtLocation(m, decl).getNonNullableType().getCallSignatures().length > 0,
      );
      if (behaviour && members.length > MAX_MEMBERS)
        found.push(`${file.slice(dir.length + 1)}: ${symbol.name} (${members.length} members)`);
    });
  }
  return found;
}

const scratch = mkdtempSync(join(tmpdir(), 'stallscope-store-interfaces-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An interface of `n` methods, and one of `n` plain fields (a row). */
function fakeInterfaces(n: number): string {
  const methods = Array.from({ length: n }, (_, i) => `  m${i}(): void;`).join('\n');
  const fields = Array.from({ length: n }, (_, i) => `  c${i}: string;`).join('\n');
  return `export interface Wide {\n${methods}\n}\nexport interface Row {\n${fields}\n}\n`;
}

describe('the store’s interfaces, split by role', () => {
  it('has none with more than 15 members', () => {
    expect(oversized(storeDir)).toEqual([]);
  }, 60_000);

  it('finds one of 16 members (a method or an inherited member too), but not one of 15 nor a row', () => {
    writeFileSync(join(scratch, 'wide.ts'), fakeInterfaces(16));
    writeFileSync(join(scratch, 'narrow.ts'), fakeInterfaces(15).replace(/Wide/g, 'Narrow').replace(/Row/g, 'Cols'));
    writeFileSync(
      join(scratch, 'joined.ts'),
      `import type { Narrow } from './narrow.ts';\n` +
        `export interface Joined extends Narrow {\n  readonly extra: () => void;\n}\n` +
        `export type Both = Narrow & { more(): void };\n`,
    );
    expect(oversized(scratch).sort()).toEqual([
      'joined.ts: Both (16 members)',
      'joined.ts: Joined (16 members)',
      'wide.ts: Wide (16 members)',
    ]);
  });
});
