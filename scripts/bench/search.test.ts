import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSeed } from '../../data/seed.ts';
import { ndcgAt, readJudgments, recallAt, scoreList, servicesList, startSeededApp } from './search.ts';

/*
 * The search benchmark's evaluation, run small: a few judged queries asked of the real app on a database seeded with
 * the embedded default. It checks that the figures compute, not that they reach the target (`npm run bench -- search`).
 */

let app: Awaited<ReturnType<typeof startSeededApp>>;

beforeAll(async () => {
  app = await startSeededApp();
});
afterAll(() => app.close());

describe('the search benchmark', () => {
  it('holds at least 40 judged queries, each judging services of the embedded default with grade 1 or 2', () => {
    const queries = readJudgments();
    const seeded = new Set(readSeed().map((service) => service.id));
    expect(queries.length).toBeGreaterThanOrEqual(40);
    expect(new Set(queries.map((query) => query.q)).size).toBe(queries.length);
    for (const { q, relevant } of queries) {
      expect(Object.keys(relevant).length, q).toBeGreaterThan(0);
      for (const [id, grade] of Object.entries(relevant)) {
        expect(seeded.has(id), `${q}: ${id}`).toBe(true);
        expect([1, 2], `${q}: ${id}`).toContain(grade);
      }
    }
  });

  it('scores a ranking: graded NDCG@10 and recall@20', () => {
    expect(ndcgAt(['a', 'b', 'c'], { a: 2, b: 1 }, 10)).toBe(1);
    expect(ndcgAt(['b', 'a'], { a: 2, b: 1 }, 10)).toBeCloseTo((1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 10);
    expect(ndcgAt(['x'], { a: 2 }, 10)).toBe(0);
    expect(recallAt(['a', 'x'], { a: 2, b: 1 }, 20)).toBe(0.5);
  });

  it('asks judged queries of the services list over HTTP and computes figures in [0, 1]', async () => {
    const queries = readJudgments().filter((query) => ['translate text', 'weather forecast', 'scrape a web page'].includes(query.q));
    expect(queries).toHaveLength(3);
    const score = await scoreList(app.origin, servicesList, queries);
    expect(score.perQuery.map((one) => one.q)).toEqual(queries.map((query) => query.q));
    for (const figure of [score.ndcg10, score.recall20, ...score.perQuery.flatMap((one) => [one.ndcg10, one.recall20])]) {
      expect(figure).toBeGreaterThanOrEqual(0);
      expect(figure).toBeLessThanOrEqual(1);
    }
    // DeepL is the one service judged for "translate text", and the list finds it.
    expect(score.perQuery.find((one) => one.q === 'translate text')!.recall20).toBe(1);
  });

  it('finds services that say all of a query but one word: "buy wine" lists the winery that says "purchase wine"', async () => {
    const queries = readJudgments().filter((query) => query.q === 'buy wine');
    expect(queries).toHaveLength(1);
    const score = await scoreList(app.origin, servicesList, queries);
    expect(score.recall20).toBeGreaterThan(0);
    expect(score.ndcg10).toBeGreaterThan(0);
  });
});
