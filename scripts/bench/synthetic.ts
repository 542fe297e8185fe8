/**
 * Deterministic synthetic services for the benchmarks: service `i` is a pure function of `i`, with a spread of
 * rails, chains, assets, endpoint counts and liveness shaped like the public directories (see BENCHMARKS.md).
 */
import { classifyProbe } from '../../crawler/classify.ts';
import { toServiceId } from '../../domain/service-id.ts';
import type { EndpointInput, Price, ProbeInput, Rail, ServiceInput, ServiceTerms, SourceRef } from '../../data/types.ts';
import { toPaymentRequiredHeader } from '../fleet/challenges.ts';
import { seededRandom, type Random } from '../seeded-random.ts';

export const PROBES_PER_SERVICE = 20;

/** Topics from common to rare (Zipf weights), so `q` words from the tail hit well under 1 % of services. */
const TOPICS = [
  'image', 'search', 'chat', 'token', 'price', 'news', 'wallet', 'market', 'video', 'audio', 'scrape', 'email',
  'social', 'defi', 'nft', 'code', 'translate', 'stock', 'sports', 'music', 'maps', 'flight', 'hotel', 'weather',
  'recipe', 'legal', 'medical', 'resume', 'invoice', 'sentiment', 'summary', 'ocr', 'transcribe', 'domain', 'proxy',
  'captcha', 'lottery', 'horoscope', 'poetry', 'trivia', 'chess', 'astronomy', 'earthquake', 'traffic', 'parking',
  'recycling', 'genealogy', 'patent', 'tariff', 'pollen', 'satellite', 'wildfire', 'volcano', 'vineyard', 'origami',
];
const TOPIC_WEIGHTS = TOPICS.map((_, rank) => 1 / (rank + 1));
const ADJECTIVES = ['swift', 'open', 'agent', 'pay', 'quick', 'smart', 'deep', 'micro', 'hyper', 'bright', 'prime',
  'nano', 'meta', 'auto', 'zen', 'blue', 'iron', 'echo', 'nova', 'pixel'];
const NOUNS = ['API', 'Feed', 'Oracle', 'Hub', 'Lab', 'Engine', 'Service', 'Gateway', 'Cloud', 'Bot', 'Kit', 'Scan'];
const QUALITIES = ['Real-time', 'Fast', 'Cheap', 'Reliable', 'On-demand', 'Pay-per-call', 'Curated', 'Historical', 'Bulk'];
const OUTPUTS = ['data', 'lookups', 'analysis', 'results', 'insights', 'reports', 'generation', 'queries', 'alerts'];
const CLOSINGS = ['No account or API key needed.', 'Answers in under a second.', 'Covers the whole world.',
  'Built for autonomous agents.', 'Settles on the first request.', 'Cached for five minutes.'];
const PATHS = ['lookup', 'search', 'latest', 'history', 'batch', 'stream', 'quote', 'report', 'convert', 'analyze'];
const CATEGORIES = ['data', 'ai', 'search', 'web', 'social', 'blockchain', 'storage', 'compute', 'media', 'finance'];
const TLDS = ['com', 'io', 'xyz', 'ai', 'dev', 'app', 'net'];
const PLATFORMS = ['vercel.app', 'workers.dev', 'mpp.paywithlocus.com', 'onrender.com'];
const FACILITATORS = ['https://x402.org/facilitator', 'https://facilitator.payai.network', 'https://api.cdp.coinbase.com'];
const FAILURES: Array<[number | null, string]> = [[404, 'no payment challenge (HTTP 404)'],
  [200, 'answered 200 without a payment challenge'], [500, 'server error (HTTP 500)'], [null, 'timed out after 10 s']];
/** The newest probe of every service is at most this old; older ones follow every six hours. */
const LAST_PROBE_MS = Date.parse('2026-11-01T00:00:00.000Z');
const PROBE_EVERY_MS = 6 * 3600_000;

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function weighted<T>(random: Random, items: readonly T[], weights: readonly number[]): T {
  let left = random() * weights.reduce((sum, weight) => sum + weight, 0);
  for (const [index, item] of items.entries()) {
    left -= weights[index] as number;
    if (left < 0) return item;
  }
  return items[items.length - 1] as T;
}

const randomFor = (i: number, salt: number): Random => seededRandom(Math.imul(i + 1, 0x9e3779b1) ^ salt);
const capitalize = (word: string) => word[0]!.toUpperCase() + word.slice(1);

interface Terms {
  rails: Rail[];
  chains: string[];
  assets: string[];
}

/** ~70 % x402 only, ~20 % MPP only, ~8 % both, ~2 % ACP. */
function toTerms(random: Random): Terms {
  const roll = random();
  const rails: Rail[] = roll < 0.7 ? ['x402'] : roll < 0.9 ? ['mpp'] : roll < 0.98 ? ['mpp', 'x402'] : ['acp'];
  if (rails[0] === 'acp') return { rails, chains: [], assets: random() < 0.5 ? ['USD'] : [] };
  const chains = new Set<string>();
  if (rails.includes('mpp')) chains.add('tempo');
  if (rails.includes('x402')) {
    chains.add(weighted(random, ['base', 'solana', 'base-sepolia', 'polygon', 'arbitrum', `eip155:${1000 + Math.floor(random() * 50)}`],
      [60, 18, 9, 5, 4, 4]));
    if (random() < 0.15) chains.add(random() < 0.7 ? 'solana' : 'base');
  }
  const assets = new Set(['USDC']);
  if (chains.has('tempo') && random() < 0.3) assets.add('pathUSD');
  if (random() < 0.05) assets.add('EURC');
  if (random() < 0.03) assets.add('USDT');
  return { rails, chains: [...chains], assets: [...assets] };
}

function toPrice(random: Random): Price {
  if (random() < 0.15) return { usd: null, display: null };
  const usd = pick(random, [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25]);
  return { usd, display: `$${usd} / call` };
}

/** The host of service `i`, drawn first so `syntheticId(i)` needs nothing else. */
function toHost(i: number, topic: string): string {
  const random = randomFor(i, 0x51ed);
  const label = `${pick(random, ADJECTIVES)}-${topic}-${i.toString(36)}`;
  return random() < 0.2 ? `${label}.${pick(random, PLATFORMS)}` : `api.${label}.${pick(random, TLDS)}`;
}

function topicOf(i: number): string {
  return weighted(randomFor(i, 0x7091c), TOPICS, TOPIC_WEIGHTS);
}

/**
 * Searches for the first time: a topic of the tail with a word its names and descriptions pair it with, in either
 * order, each matching a few dozen services; 3,500 of them, shuffled, so that none repeats within a 10 s load.
 */
export function freshSearches(random: Random): string[] {
  const companions = [...ADJECTIVES, ...NOUNS, ...QUALITIES, ...OUTPUTS].map((word) => word.toLowerCase());
  const searches = TOPICS.slice(20).flatMap((topic) => companions.flatMap((word) => [`${topic} ${word}`, `${word} ${topic}`]));
  for (let i = searches.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [searches[i], searches[j]] = [searches[j]!, searches[i]!];
  }
  return searches;
}

/** The id of service `i`, without building it. */
export function syntheticId(i: number): string {
  return toServiceId(`https://${toHost(i, topicOf(i))}/`);
}

/** Service `i`: 1-50 endpoints (most have one; an ACP merchant one), names and descriptions built from the word lists. */
export function syntheticService(i: number): ServiceInput {
  const random = randomFor(i, 0x5e41ce);
  const topic = topicOf(i);
  const host = toHost(i, topic);
  const terms = toTerms(random);
  // An ACP merchant is one checkout (`acp://host`): one endpoint, since a second would share its method and URL.
  const endpointCount = terms.rails[0] === 'acp' ? 1 : 1 + Math.floor(49 * random() ** 10);
  const endpoints: EndpointInput[] = Array.from({ length: endpointCount }, (_, k) => ({
    url: terms.rails[0] === 'acp' ? `acp://${host}` : `https://${host}/v1/${topic}/${PATHS[k % PATHS.length]}${k >= PATHS.length ? k : ''}`,
    method: terms.rails[0] === 'acp' ? null : random() < 0.6 ? 'GET' : 'POST',
    description: random() < 0.5 ? null : `${capitalize(pick(random, PATHS))} ${topic} ${pick(random, OUTPUTS)}`,
    price: toPrice(random),
    ...terms,
  }));
  const main = endpoints[0]!;
  const other = random() < 0.3 ? ` Also offers ${weighted(random, TOPICS, TOPIC_WEIGHTS)} endpoints.` : '';
  return {
    id: toServiceId(main.url),
    name: `${capitalize(pick(random, ADJECTIVES))} ${capitalize(topic)} ${pick(random, NOUNS)}`,
    category: random() < 0.6 ? null : pick(random, CATEGORIES),
    description: `${pick(random, QUALITIES)} ${topic} ${pick(random, OUTPUTS)} for AI agents, paid per call. ${pick(random, CLOSINGS)}${other}`,
    endpoint: main.url,
    facilitator: terms.rails.includes('x402') && random() < 0.5 ? pick(random, FACILITATORS) : null,
    price: main.price,
    ...terms,
    sources: toSources(random, terms.rails, host),
    endpoints,
  };
}

function toSources(random: Random, rails: Rail[], host: string): SourceRef[] {
  const sources: SourceRef[] = [];
  if (rails.includes('mpp')) sources.push({ source: 'mpp.dev', url: `https://mpp.dev/api/services?ids=${host}` });
  if (rails.includes('acp')) sources.push({ source: 'acp', url: null });
  if (rails.includes('x402')) {
    const roll = random();
    if (roll < 0.8) sources.push({ source: 'open402', url: 'https://github.com/ArcedeDev/open-402' });
    if (roll > 0.6) sources.push({ source: 'bazaar', url: 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources' });
  }
  return sources;
}

/** The probes of a service, oldest first; the newest is ok for ~40 % of services, which makes them live. */
export function syntheticProbes(i: number, service: ServiceInput): ProbeInput[] {
  const random = randomFor(i, 0x9b0be);
  const live = random() < 0.4;
  const reliability = live ? 0.9 : 0.15;
  const lastMs = LAST_PROBE_MS - Math.floor(random() * PROBE_EVERY_MS);
  return Array.from({ length: PROBES_PER_SERVICE }, (_, k) => {
    const newest = k === PROBES_PER_SERVICE - 1;
    const ok = newest ? live : random() < reliability;
    const [failedStatus, reason] = pick(random, FAILURES);
    return {
      service_id: service.id,
      probed_at: new Date(lastMs - (PROBES_PER_SERVICE - 1 - k) * PROBE_EVERY_MS).toISOString(),
      ok,
      status_code: ok ? 402 : failedStatus,
      method: service.endpoints[0]!.method,
      latency_ms: failedStatus === null && !ok ? null : 40 + Math.floor(random() ** 2 * 900),
      reason: ok ? null : reason,
      detected_rails: ok ? service.rails : [],
      ...(ok && newest ? { terms: challengeTermsOf(service) } : {}),
    };
  });
}

/**
 * What a live service paid in USDC on Base with x402 alone states in its challenge, read by the crawler's own
 * classifier from a real `PAYMENT-REQUIRED` header, so its main endpoint is listed by the index's x402 Bazaar; null
 * for any other service, whose terms stay its directories'.
 */
function challengeTermsOf(service: ServiceInput): ServiceTerms | null {
  const { usd } = service.price;
  if (service.rails.join() !== 'x402' || service.chains[0] !== 'base' || usd === null) return null;
  const header = toPaymentRequiredHeader({ url: service.endpoint, amount: String(Math.round(usd * 1e6)), description: service.description ?? service.name });
  const read = classifyProbe({ outcome: 'answered', status: 402, headers: { 'payment-required': header }, body: '{}', truncatedAtBytes: null });
  return read.terms;
}
