/**
 * The schema is declared once (server/dashboard/store/common/schema.ts, the
 * tables as Kysely sees them): both stores' migrations must reach it. A real
 * SQLite store and a real throwaway PostgreSQL cluster are migrated, and each
 * table's columns — name, number or text, nullable, with a default
 * (`Generated`) — are compared with the declared table types, read by the
 * TypeScript compiler. PostgreSQL's runs also hold `PgRunsOnly`.
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';

/** One column as compared: `name type [null] [default]`. */
type Columns = Record<string, string[]>;

const column = (name: string, isNumber: boolean, nullable: boolean, hasDefault: boolean) =>
  `${name} ${isNumber ? 'number' : 'text'}${nullable ? ' null' : ''}${hasDefault ? ' default' : ''}`;

/** The declared tables (StallscopeDb), the columns only PostgreSQL's runs hold (PgRunsOnly), its own tables. */
function declared(): { tables: Columns; pgRunsOnly: string[]; pgTables: Columns } {
  const file = resolve(import.meta.dirname, '../../../../server/dashboard/store/common/schema.ts');
  const program = ts.createProgram([file], {
    noEmit: true,
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
  const named = (n: string) => checker.getDeclaredTypeOfSymbol(exports.find((s) => s.name === n)!);
  const columns = (table: ts.Type): string[] =>
    checker.getPropertiesOfType(table).map((p) => {
      const t = checker.getTypeOfSymbol(p);
      // Generated<T> is Kysely's ColumnType: the value read is its __select__.
      const select = t.getProperty('__select__');
      const value = select ? checker.getTypeOfSymbol(select) : t;
      const nullable = value.isUnion() && value.types.some((u) => u.flags & ts.TypeFlags.Null);
      const isNumber = !!(value.getNonNullableType().flags & ts.TypeFlags.NumberLike);
      return column(p.name, isNumber, nullable, !!select);
    });
  const tables: Columns = {};
  for (const t of checker.getPropertiesOfType(named('StallscopeDb')))
    tables[t.name] = columns(checker.getTypeOfSymbol(t)).sort();
  const pgTables: Columns = {};
  for (const t of checker.getPropertiesOfType(named('PgOnlyTables')))
    pgTables[t.name] = columns(checker.getTypeOfSymbol(t)).sort();
  return { tables, pgRunsOnly: columns(named('PgRunsOnly')), pgTables };
}

function sqliteColumns(): Columns {
  const store = new SqliteStore({ dataDir: null });
  try {
    let names = store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .pluck()
      .all() as string[];
    // A full-text index (FTS5: its virtual table and the shadow tables named after it) is SQLite's own index of
    // columns declared elsewhere (migration 9's runs_text), not a table queries read through the declaration.
    const virtual = store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
      .pluck()
      .all() as string[];
    names = names.filter((n) => !virtual.some((v) => n === v || n.startsWith(`${v}_`)));
    const tables: Columns = {};
    for (const name of names) {
      const cols = store.db.pragma(`table_info(${name})`) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: unknown;
        pk: number;
      }[];
      tables[name] = cols
        .map((c) => column(c.name, /INT/i.test(c.type), !c.notnull && !c.pk, c.dflt_value !== null))
        .sort();
    }
    return tables;
  } finally {
    store.closeNow();
  }
}

async function pgColumns(url: string): Promise<Columns> {
  const store = await openPgStore({ url });
  try {
    const rows = (
      await store.pool.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
        `SELECT table_name, column_name, data_type, is_nullable, column_default IS NOT NULL AS has_default
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name != 'stallscope_schema'`,
      )
    ).rows as {
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
      has_default: boolean;
    }[];
    const tables: Columns = {};
    for (const r of rows)
      (tables[r.table_name] ??= []).push(
        column(r.column_name, /int/i.test(r.data_type), r.is_nullable === 'YES', r.has_default),
      );
    for (const t of Object.values(tables)) t.sort();
    return tables;
  } finally {
    await store.close();
  }
}

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

describe('the schema’s one declaration', () => {
  it('is what the SQLite migrations reach, table by table, column by column', () => {
    expect(sqliteColumns()).toEqual(declared().tables);
  });

  it('is what the PostgreSQL migrations reach, with PostgreSQL’s own run columns', async () => {
    const { tables, pgRunsOnly, pgTables } = declared();
    const expected = { ...tables, ...pgTables, runs: [...tables.runs, ...pgRunsOnly].sort() };
    expect(await pgColumns(await cluster.freshDatabase())).toEqual(expected);
  });
});
