/**
 * `GET /api/stalls` counted by the database (server/dashboard/store/common/boardReply.ts) answers exactly what the
 * JavaScript fold (shared/stalls/stallsApi.ts `buildBoard` over the window's runs) answers, on seeded histories with
 * the board's edge cases — runs without CI metadata or `ci_node`, timeout-only stalls (phase-only fingerprints),
 * runs with two fingerprints, py-spy captures that read a stack and ones that failed (not evidence) — for every
 * store the board runs on: SQLite on its reader thread (a data folder), SQLite in memory (on the store's own
 * connection) and PostgreSQL (a read-only snapshot). Windows: the default, the newest runs only, one pipeline, one
 * node, a time range; strips of 20 and of 3 runs (so prior controls are read past the strip). Any group, count,
 * rate, strip cell, control, reference or sentence that differs fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import { boardView } from '#server/dashboard/store/common/boardView.ts';
import type { BoardFilter } from '#server/dashboard/store/common/records.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { loadHistory } from '#test/perf/boardHistory.ts';

const end = Date.UTC(2026, 11, 1);
const DAY = 86_400_000;

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

for (const kind of ['SQLite (reader thread)', 'SQLite (in memory)', 'PostgreSQL'] as const)
  for (const seed of [3, 11])
    describe(`the board by SQL on ${kind}, history seed ${seed}`, () => {
      let app: FastifyInstance;
      let dir: string | null = null;
      beforeAll(async () => {
        if (kind === 'SQLite (reader thread)') dir = mkdtempSync(join(tmpdir(), 'stallscope-board-reply-'));
        const database = kind === 'PostgreSQL' ? await cluster!.freshDatabase() : null;
        app = await buildApp({ dataDir: dir, database, logger: false, store: { flushIntervalMs: 10 } });
        await app.ready();
        await loadHistory(app.store, {
          seed,
          runs: 400,
          pipelines: 3,
          nodes: 4,
          fingerprints: 5,
          stalledShare: 0.35,
          endMs: end,
          variety: true,
        });
      }, 90_000);
      afterAll(async () => {
        await app?.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it('holds the edge cases it is meant to compare', async () => {
        const { runs } = await app.store.board.runs({ maxRuns: 5000 });
        const board = boardView({ runs, truncated: false }, 20);
        expect(board.groups.some((g) => g.scope === 'local')).toBe(true);
        expect(board.groups.some((g) => g.frames.length === 0)).toBe(true);
        expect(runs.some((r) => new Set(r.evidence.map((e) => e.fingerprint)).size > 1)).toBe(true);
        expect(runs.some((r) => r.evidence.some((e) => e.kind === 'py-spy'))).toBe(true);
        expect(runs.some((r) => r.metadata.ci_pipeline && !r.metadata.ci_node)).toBe(true);
        // A failed capture is no evidence: its run is not stalled by it (the facts hold no stack for it).
        const failed = await app.store.kysely
          .selectFrom('stall_reports')
          .select('run_id')
          .where('worker_id', '=', -1)
          .where('report_json', 'like', '%stackError%')
          .execute();
        expect(failed.length).toBeGreaterThan(0);
        const byId = new Map(runs.map((r) => [r.id, r]));
        for (const f of failed) expect(byId.get(f.run_id)!.evidence.some((e) => e.kind === 'py-spy')).toBe(false);
      });

      const windows: [string, () => BoardFilter][] = [
        ['the default window', () => ({ maxRuns: 5000 })],
        ['the newest runs only', () => ({ maxRuns: 120 })],
        ['one pipeline', () => ({ maxRuns: 5000, metadata: [['ci_pipeline', 'vllm-omni/nightly-1']] })],
        ['one node', () => ({ maxRuns: 5000, metadata: [['ci_node', 'gpu-node-02']] })],
        ['a time range', () => ({ maxRuns: 5000, since: end - 250 * DAY, until: end - 60 * DAY })],
      ];
      it("holds the first `limit` groups in the fold's order, ties at the cut included, and counts them all", async () => {
        const f = { maxRuns: 5000 };
        const all = boardView(await app.store.board.runs(f), 20);
        // A cut inside a run of equal occurrences and last occurrence: the rank lets the ties through, the order cuts.
        const tied = all.groups.findIndex(
          (g, i) =>
            i > 0 && g.occurrences === all.groups[i - 1].occurrences && g.lastSeen === all.groups[i - 1].lastSeen,
        );
        for (const limit of [1, 4, tied > 0 ? tied : 2, all.groups.length + 5]) {
          const got = await app.store.board.view(f, 20, { limit });
          expect(got).toEqual({ ...all, groups: all.groups.slice(0, limit) });
          expect(got.groupsTotal).toBe(all.groups.length);
        }
      });

      it("keeps one fingerprint's groups, counted as the fold filters them", async () => {
        const f = { maxRuns: 5000 };
        const all = boardView(await app.store.board.runs(f), 20);
        const fp = all.groups.find((g) => all.groups.filter((h) => h.fingerprint === g.fingerprint).length > 1)!;
        const got = await app.store.board.view(f, 20, { fingerprint: fp.fingerprint, limit: 50 });
        expect(got.groups.length).toBeGreaterThan(1);
        expect(got).toEqual(boardView(await app.store.board.runs(f), 20, { fingerprint: fp.fingerprint, limit: 50 }));
      });

      for (const [name, filter] of windows)
        for (const last of [20, 3])
          it(`answers what the fold answers: ${name}, strips of ${last}`, async () => {
            const f = filter();
            const want = boardView(await app.store.board.runs(f), last);
            expect(want.groups.length).toBeGreaterThan(1);
            expect(await app.store.board.view(f, last)).toEqual(want);
          });
    });
