/**
 * The `search` benchmark group: how well the lists rank what a person or an agent asks for. The judged queries of
 * search-judgments.json (written by reading the embedded default: docs/decisions.md) are asked of the real app over
 * HTTP, on a database seeded with the embedded default, and each list's answers are scored with NDCG@10 (graded: 2 =
 * exactly what was asked, 1 = related) and recall@20 (the judged services found in the first 20).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, serveApp } from '../../api/app.ts';
import { testConfig } from '../../api/testing.ts';
import { openDatabase } from '../../data/db.ts';
import { readSeed, seedIfEmpty } from '../../data/seed.ts';
import type { BenchGroup, Figure } from './report.ts';

/** One judged query: the service ids a careful reader judged relevant, each with its grade (2 or 1). */
export interface JudgedQuery {
  q: string;
  relevant: Record<string, number>;
}

/**
 * A list the judged queries are asked of: the service ids it answers for a query, best first. Another list (the
 * endpoints list) joins by answering the service of each endpoint, in its order, each service once.
 */
export interface RankedList {
  name: string;
  ask(origin: string, q: string): Promise<string[]>;
}

export interface ListScore {
  ndcg10: number;
  recall20: number;
  perQuery: Array<{ q: string; ndcg10: number; recall20: number }>;
}

/** The answers scored: NDCG over the first 10, recall over the first 20. */
const NDCG_DEPTH = 10;
const RECALL_DEPTH = 20;

export const JUDGMENTS_PATH = new URL('./search-judgments.json', import.meta.url);

export function readJudgments(): JudgedQuery[] {
  return (JSON.parse(readFileSync(JUDGMENTS_PATH, 'utf8')) as { queries: JudgedQuery[] }).queries;
}

/** `GET /api/v1/services?q=`, in the order it answers by default (relevance). */
export const servicesList: RankedList = {
  name: 'services',
  ask: async (origin, q) => {
    const response = await fetch(`${origin}/api/v1/services?${new URLSearchParams({ q, limit: String(RECALL_DEPTH) })}`);
    if (!response.ok) throw new Error(`GET /api/v1/services?q=${q} answered ${response.status}`);
    const body = (await response.json()) as { services: Array<{ id: string }> };
    return body.services.map((service) => service.id);
  },
};

/** The lists the group scores. */
export const RANKED_LISTS: RankedList[] = [servicesList];

/**
 * Normalized discounted cumulative gain of a ranking at `depth`: gains 2^grade - 1, discounted by log2(rank + 1),
 * over the same sum for the judged services in their best order; 0 when nothing is judged relevant.
 * @example ndcgAt(['a', 'b'], { b: 2 }, 10) // 0.63
 */
export function ndcgAt(ranked: readonly string[], relevant: Record<string, number>, depth: number): number {
  const dcg = (grades: number[]) => grades.slice(0, depth).reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
  const ideal = dcg(Object.values(relevant).sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((id) => relevant[id] ?? 0)) / ideal;
}

/**
 * The share of the judged services found in the first `depth` of a ranking.
 * @example recallAt(['a', 'b'], { b: 2, c: 1 }, 20) // 0.5
 */
export function recallAt(ranked: readonly string[], relevant: Record<string, number>, depth: number): number {
  const judged = Object.keys(relevant);
  if (judged.length === 0) return 0;
  const found = new Set(ranked.slice(0, depth));
  return judged.filter((id) => found.has(id)).length / judged.length;
}

/** Asks every judged query of one list and scores its answers, averaged over the queries. */
export async function scoreList(origin: string, list: RankedList, queries: readonly JudgedQuery[]): Promise<ListScore> {
  const perQuery: ListScore['perQuery'] = [];
  for (const { q, relevant } of queries) {
    const ranked = await list.ask(origin, q);
    perQuery.push({ q, ndcg10: ndcgAt(ranked, relevant, NDCG_DEPTH), recall20: recallAt(ranked, relevant, RECALL_DEPTH) });
  }
  const mean = (key: 'ndcg10' | 'recall20') => perQuery.reduce((sum, one) => sum + one[key], 0) / Math.max(1, perQuery.length);
  return { ndcg10: mean('ndcg10'), recall20: mean('recall20'), perQuery };
}

/**
 * The real app on a database file seeded with the embedded default, listening on a free local port.
 * @example const app = await startSeededApp(); await scoreList(app.origin, servicesList, readJudgments()); await app.close();
 */
export async function startSeededApp(): Promise<{ origin: string; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'psi-search-'));
  const databasePath = join(dir, 'index.db');
  const db = openDatabase(databasePath);
  seedIfEmpty(db, readSeed(), new Date().toISOString());
  const config = testConfig({ databasePath, rateLimit: { limit: 1_000_000_000, windowSeconds: 60 } });
  const server = serveApp(createApp({ db, config, now: () => new Date() }), { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  return {
    origin: new URL(server.url!).origin,
    close: async () => {
      await server.close(true);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const searchGroup: BenchGroup = { name: 'search', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const queries = readJudgments();
  const app = await startSeededApp();
  try {
    const judgments = queries.reduce((sum, query) => sum + Object.keys(query.relevant).length, 0);
    emit({ label: 'judged set', value: `${queries.length} queries, ${judgments} judged services (embedded default)` });
    for (const list of RANKED_LISTS) {
      const score = await scoreList(app.origin, list, queries);
      emit({ label: `${list.name} NDCG@10`, value: score.ndcg10.toFixed(3), target: { actual: score.ndcg10, op: '>=', limit: 0.75, unit: '' } });
      emit({ label: `${list.name} recall@20`, value: score.recall20.toFixed(3) });
      const weakest = [...score.perQuery].sort((a, b) => a.ndcg10 - b.ndcg10).slice(0, 5);
      emit({ label: `${list.name} weakest queries`, value: weakest.map((one) => `"${one.q}" ${one.ndcg10.toFixed(2)}`).join(', ') });
    }
  } finally {
    await app.close();
  }
}
