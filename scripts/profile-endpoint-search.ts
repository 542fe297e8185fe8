/**
 * In process: listEndpoints over the bench's fresh two-word searches on a bench database (which it migrates, as
 * opening any database does): the percentiles, the slowest searches, and a digest of every answer (counts and the
 * first page's ids), to tell that two versions answer the same.
 * @example node --import tsx scripts/profile-endpoint-search.ts /tmp/x/psi-bench/services-100000-v2-<key>.db 1500
 */
import { openDatabase } from '../data/db.ts';
import { listEndpoints } from '../data/endpoint-list.ts';
import { seededRandom } from './seeded-random.ts';
import { freshSearches } from './bench/synthetic.ts';
import { createHash } from 'node:crypto';

const [path, countArg = '1500'] = process.argv.slice(2);
const db = openDatabase(path!);
const searches = freshSearches(seededRandom(7)).slice(0, Number(countArg));
const times: { q: string; ms: number; total: number }[] = [];
const digest = createHash('sha256');
for (const q of searches) {
  const started = performance.now();
  const answer = listEndpoints(db, { filters: { q }, page: { limit: 20, offset: 0 }, sort: 'relevance' });
  times.push({ q, ms: performance.now() - started, total: answer.counts.total });
  digest.update(JSON.stringify([q, answer.counts, answer.endpoints.map((e) => e.id)]));
}
const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(2);
console.log(`${times.length} searches: p50 ${at(0.5)} ms, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)}; answers ${digest.digest('hex').slice(0, 16)}`);
for (const t of times.sort((a, b) => b.ms - a.ms).slice(0, 8)) console.log(`  ${t.ms.toFixed(1)} ms  ${t.total} matches  ${t.q}`);
