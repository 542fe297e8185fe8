import { FLAG_EXPLANATIONS, FLAGS, type EndpointCheck, type OwnerView, type Service, type ServiceDetail } from '../../../domain/schemas.ts';
import { getOwnerView } from '../../../data/owner-edits.ts';
import type { DB } from '../../../data/db.ts';
import { median } from '../../../data/median.ts';
import { countEndpoints, listEndpoints, listProbeDays, type EndpointRecord } from '../../../data/pages.ts';
import { listCallViews, type CallView } from './calls.ts';
import { listProbes, PROBE_HISTORY, type ProbeRecord } from '../../../data/probe-read.ts';
import { getService, listSourceUrls } from '../../../data/service-read.ts';
import { toLatencyChart, type LatencyChart } from './chart.ts';
import { toDirectoryName, toRailLabel } from './directories.ts';
import {
  formatDate, formatUsd, formatUtc, joinWords, listTemplateParams, plural, shellQuote, toBaseUrl, toDisplayName, toHost, toPathOrUrl, toSafeHref,
} from './format.ts';
import { NOT_CHECKED, toCheckResult, CHALLENGE_DETECTED, NO_CHALLENGE, type CheckResult } from './result.ts';
import { getUptime, type UptimeView } from './uptime.ts';

/**
 * The listing page of one service host (spec "Listing page"), shaped from the database for
 * site/src/pages/services/[id].astro, which only renders it. Checks and terms are those of the main endpoint.
 */

/** Endpoint rows per page of a listing; further pages are `/services/{id}/endpoints/{n}`. */
export const ENDPOINTS_PER_PAGE = 50;
/** Listing URLs shown in "where it is listed" before the rest are summarized. */
const MAX_LISTINGS = 25;

export interface Link {
  text: string;
  /** An absolute http(s) URL, or null when the value must stay plain text. */
  href: string | null;
}

export interface EndpointRowView {
  /** The method, or `—` when the listing gives none. */
  method: string;
  /** The path on the base URL, or the full URL when elsewhere. */
  target: Link;
  /** `$0.01`, or `No price listed`. */
  price: string;
  /** The description, or `—`. */
  description: string;
  /** `main endpoint, checked` on the row of the main endpoint, else null. */
  mainLabel: string | null;
  /** Its last check: the main endpoint's is its last probe, every other's its daily check. */
  check: EndpointCheckView;
}

export interface EndpointCheckView {
  result: CheckResult;
  /** `2026-11-01 12:00 UTC · HTTP 402 · 85 ms`, or what stands instead of a check. */
  detail: string;
  /** Why the check found no challenge (it may quote the answer, so it is isolated on the page); else null. */
  reason: string | null;
  iso: string | null;
}

/** A flag on the listing page: its name and its explanation (domain/values.ts). */
export interface FlagView {
  name: string;
  text: string;
}

export interface PageLink {
  number: number;
  href: string;
  current: boolean;
}

export interface EndpointPageView {
  total: number;
  page: number;
  pages: number;
  /** `Showing 1–50 of 200 endpoints`. */
  showing: string;
  rows: EndpointRowView[];
  links: PageLink[];
  prevHref: string | null;
  nextHref: string | null;
}

export interface RecentCheckView {
  time: string;
  iso: string;
  result: CheckResult;
  status: string;
  ms: string;
  reason: string;
}

export interface ListingView {
  id: string;
  /** How to call each endpoint of this page (site/src/lib/calls.ts); none for a service that is not HTTP. */
  calls: CallView[];
  /** The name shown (format.ts toDisplayName: the host when the directory's name is only a slug of it). */
  name: string;
  /** The host as written (`api.firecrawl.dev`), for the breadcrumb. */
  host: string;
  description: string | null;
  category: string | null;
  path: string;
  canonical: string;
  apiPath: string;
  apiUrl: string;
  snapshotPath: string;
  /** The owner's way in: the claim request for this service, and the page that walks through the rest. */
  claim: { href: string; command: string };
  result: CheckResult;
  /** The last check in a sentence after its result: `on the last check, 2026-11-01 12:00 UTC (HTTP 402, 85 ms).` */
  summary: string;
  /** Why the last check detected no challenge, when it did not. */
  lastReason: string | null;
  /** `$0.01`, or null when no price is listed. */
  price: string | null;
  priceDisplay: string | null;
  /** What "What price is recorded?" answers when no price is listed: who states the amount, if anyone. */
  noPriceAnswer: string;
  /** `17 of the last 20 checks detected a challenge`, or null before the first check. */
  checksText: string | null;
  checks: { detected: number; total: number };
  /** The median response time of the checks that got an HTTP answer, or null when none did. */
  medianMs: number | null;
  /** `120 ms`, `No answer` when no check got one, or `—` before the first check. */
  medianText: string;
  /** What the median is over: `over the last 18 answered checks`, or why there is none; null before the first check. */
  medianOver: string | null;
  lastChecked: string | null;
  lastCheckedIso: string | null;
  lastSeenLive: string | null;
  firstIndexed: string;
  /**
   * The time the page's data is as of (`options.now`), as `2026-11-01 12:00 UTC`: its check history is as of then
   * (a new check alone re-renders a page at most every half hour; a change of state at once).
   */
  dataAsOf: string;
  dataAsOfIso: string;
  /** The sample request, or null for an endpoint that is not HTTP (acp://). */
  curl: CurlSample | null;
  /** Why there is no sample request, when there is none; it follows the endpoint: `is not an HTTP URL: …`. */
  noCurlReason: string | null;
  endpointCountText: string;
  directories: string[];
  listings: Link[];
  moreListings: number;
  baseUrl: Link;
  /** The verified owner: when they verified, the fields they set (shown as theirs), their docs link; null when none. */
  owner: { text: string; docs: Link | null } | null;
  mainEndpoint: Link;
  endpoints: EndpointPageView;
  recentChecks: RecentCheckView[];
  rails: string;
  chains: string;
  assets: string;
  /** For an ACP merchant listing no chain or asset, what the key facts say instead of two `None listed`; else null. */
  checkoutTerms: string | null;
  facilitator: Link | null;
  uptime: UptimeView[];
  chart: LatencyChart | null;
  dailyChart: LatencyChart | null;
  /** Not probed by design (acp://). */
  unprobeable: boolean;
  /** Why a service that is never probed has no checks, uptime or chart (an ACP merchant, a non-HTTP endpoint); else null. */
  notChecked: string | null;
  /** What the index observed that a bare challenge hides, each with its explanation. */
  flags: FlagView[];
}

export interface CurlSample {
  command: string;
  /** What to expect: the 402, the payment client and the asset. */
  comment: string;
  /** For a URL template (`/:version/files`): which parameters to fill in before it runs; else null. */
  note: string | null;
}

export interface ListingOptions {
  /** The site's origin, for absolute URLs (`https://index.example`). */
  siteUrl: string;
  /** The time the page is as of: the end of its uptime and daily windows (the build passes the service's newest data). */
  now: Date;
}

/**
 * The listing page of a service with its endpoint rows of page `page` (from 1), or null when the service is
 * not in the index or the page is past the last. `detail` (the service as the detail route answers it), when
 * the caller has it already, saves reading the service, its listings and its probes again.
 * @example getListingView(db, 'api-example-com', 1, { siteUrl: 'http://127.0.0.1:4321', now: new Date() });
 */
export function getListingView(db: DB, id: string, page: number, options: ListingOptions, detail?: ServiceDetail): ListingView | null {
  const service = detail ?? getService(db, id);
  if (!service) return null;
  const total = countEndpoints(db, id);
  const pages = Math.max(1, Math.ceil(total / ENDPOINTS_PER_PAGE));
  if (page < 1 || page > pages) return null;
  const records = listEndpoints(db, id, { limit: ENDPOINTS_PER_PAGE, offset: (page - 1) * ENDPOINTS_PER_PAGE });
  const probes = detail ? detail.probes : listProbes(db, id, PROBE_HISTORY);
  return toListingView(service, {
    db,
    probes,
    records,
    total,
    page,
    sourceUrls: detail ? detail.source_urls : listSourceUrls(db, id),
    options,
  });
}

interface ListingFacts {
  db: DB;
  probes: ProbeRecord[];
  records: EndpointRecord[];
  total: number;
  page: number;
  sourceUrls: Array<{ source: string; url: string | null }>;
  options: ListingOptions;
}

function toListingView(service: Service, facts: ListingFacts): ListingView {
  const { probes, options } = facts;
  const path = `/services/${service.id}`;
  const apiPath = `/api/v1/services/${service.id}`;
  const baseUrl = toBaseUrl(service.endpoint);
  const last = probes[0];
  const unprobeable = !/^https?:\/\//i.test(service.endpoint);
  const acpMerchant = unprobeable && service.rails.includes('acp');
  const detected = probes.filter((probe) => probe.ok).length;
  const latencies = probes.flatMap((probe) => toAnsweredMs(probe) ?? []);
  const medianMs = median(latencies);
  const main = findMainRecord(facts.records, service.endpoint, last?.method ?? null);
  const listings = facts.sourceUrls.flatMap((ref) =>
    ref.url ? [{ text: `${toDirectoryName(ref.source)}: ${ref.url}`, href: toSafeHref(ref.url) }] : []);
  const days = listProbeDays(facts.db, service.id, new Date(options.now.getTime() - 30 * 86_400_000).toISOString().slice(0, 10));

  return {
    id: service.id,
    name: toDisplayName(service.name, service.endpoint),
    host: toHost(service.endpoint) ?? service.id,
    description: service.description,
    category: service.category,
    path,
    canonical: `${options.siteUrl}${path}`,
    apiPath,
    apiUrl: `${options.siteUrl}${apiPath}`,
    snapshotPath: `/snapshots/services/${service.id}.json`,
    claim: toClaim(options.siteUrl, service.id),
    result: last ? (last.ok ? CHALLENGE_DETECTED : NO_CHALLENGE) : service.live === null ? NOT_CHECKED : toCheckResult(service.live),
    summary: toSummary(last, unprobeable),
    lastReason: last && !last.ok ? last.reason ?? 'No payment challenge in the answer.' : null,
    price: formatUsd(service.price.usd),
    priceDisplay: service.price.display,
    noPriceAnswer: toNoPriceAnswer(unprobeable, acpMerchant),
    checksText: probes.length > 0 ? `${detected} of ${toLastChecks(probes.length)} detected a challenge` : null,
    checks: { detected, total: probes.length },
    medianMs,
    medianText: medianMs !== null ? `${medianMs} ms` : probes.length > 0 ? 'No answer' : '—',
    medianOver: toMedianOver(latencies.length, probes.length),
    lastChecked: formatUtc(last?.probed_at ?? null),
    lastCheckedIso: last?.probed_at ?? null,
    lastSeenLive: formatUtc(service.last_seen_live),
    firstIndexed: formatDate(service.first_indexed) ?? service.first_indexed,
    dataAsOf: formatUtc(options.now.toISOString()) ?? '',
    dataAsOfIso: options.now.toISOString(),
    curl: unprobeable ? null : toCurl(service, main?.method ?? null),
    noCurlReason: unprobeable
      ? `is not an HTTP URL: ${acpMerchant ? ACP_NOT_CHECKED : 'an endpoint of this kind is not fetched, so there is no challenge to request and it is never probed.'}`
      : null,
    endpointCountText: plural(facts.total, 'endpoint'),
    calls: unprobeable ? [] : listCallViews(facts.db, service.id, facts.records),
    directories: [...new Set([...service.sources, ...facts.sourceUrls.map((ref) => ref.source)])].map(toDirectoryName),
    listings: listings.slice(0, MAX_LISTINGS),
    moreListings: Math.max(0, listings.length - MAX_LISTINGS),
    baseUrl: { text: baseUrl, href: toSafeHref(baseUrl) },
    owner: toOwnerFact(getOwnerView(facts.db, service.id)),
    mainEndpoint: { text: service.endpoint, href: toSafeHref(service.endpoint) },
    endpoints: toEndpointPage(service, facts, main, last),
    recentChecks: probes.map(toRecentCheck),
    rails: joinWords(service.rails.map(toRailLabel)) || 'None listed',
    chains: joinWords(service.chains) || 'None listed',
    assets: joinWords(service.assets) || 'None listed',
    checkoutTerms: acpMerchant && service.chains.length === 0 && service.assets.length === 0 ? 'settled at checkout; no chain or asset listed' : null,
    facilitator: service.facilitator ? { text: service.facilitator, href: toSafeHref(service.facilitator) } : null,
    uptime: getUptime(facts.db, service.id, options.now),
    chart: toLatencyChart(
      [...probes].reverse().map((probe) => ({ label: formatUtc(probe.probed_at) ?? probe.probed_at, ms: toAnsweredMs(probe), ok: probe.ok })),
      latencies.length === probes.length ? toLastChecks(probes.length) : `the ${latencies.length} answered of ${toLastChecks(probes.length)}`,
    ),
    dailyChart: toLatencyChart(
      days.map((day) => ({ label: day.day, ms: day.latency_ms_median, ok: day.challenges > 0 })),
      `the daily median over the last ${plural(days.length, 'day')}`,
    ),
    unprobeable,
    notChecked: unprobeable ? `Not checked: ${acpMerchant ? ACP_NOT_CHECKED : 'this endpoint is not HTTP, so it is never probed.'}` : null,
    flags: FLAGS.filter((flag) => service.flags.includes(flag)).map((flag) => ({ name: flag, text: FLAG_EXPLANATIONS[flag] })),
  };
}

/** The last check of an endpoint row as the table shows it. */
function toEndpointCheck(check: EndpointCheck | null, unprobeable: boolean): EndpointCheckView {
  if (check === null) return { result: NOT_CHECKED, detail: unprobeable ? 'Not HTTP: never checked' : 'Due with a coming probe pass', reason: null, iso: null };
  const when = formatUtc(check.at) ?? check.at;
  const parts = [when, ...(check.status_code === null ? [] : [`HTTP ${check.status_code}`]), ...(check.status_code === null || check.latency_ms === null ? [] : [`${check.latency_ms} ms`])];
  return {
    result: check.ok ? CHALLENGE_DETECTED : NO_CHALLENGE,
    detail: parts.join(' · '),
    reason: check.ok ? null : check.reason,
    iso: check.at,
  };
}

/**
 * The response time of a check that got an HTTP answer, else null: a check that timed out, failed to resolve or
 * was refused records how long it waited, which is no response time of the service.
 */
function toAnsweredMs(probe: ProbeRecord): number | null {
  return probe.status_code === null ? null : probe.latency_ms;
}

/** What the median response is over, given how many of the checks got an answer; null before the first check. */
function toMedianOver(answered: number, checks: number): string | null {
  if (checks === 0) return null;
  if (answered === 0) return checks === 1 ? 'the last check got no HTTP answer' : `none of ${toLastChecks(checks)} got an HTTP answer`;
  return answered === 1 ? 'over the last answered check' : `over the last ${answered} answered checks`;
}

/** Who states the amount when the listing gives no price: the challenge, or for an ACP merchant the checkout. */
/** Why an ACP merchant is never checked, in one sentence for people. */
export const ACP_NOT_CHECKED =
  'an ACP merchant sells through a checkout agreed inside an agent platform (the Agentic Commerce Protocol), not through an HTTP endpoint that answers 402, so the index has nothing to probe and never checks it.';

function toNoPriceAnswer(unprobeable: boolean, acpMerchant: boolean): string {
  if (acpMerchant) return 'No price listed. An ACP merchant sets the price at checkout inside the agent platform, and the index records none.';
  if (unprobeable) return 'No price listed. This endpoint is never called, so no challenge states one.';
  return 'No price listed. The challenge states the amount when you call the endpoint.';
}

/**
 * The row of the main endpoint among some endpoint rows: of those listing the main URL, the one with the method
 * the last check sent (the prober may fall back from GET to POST), else the first, the one the crawler probes.
 */
function findMainRecord(records: readonly EndpointRecord[], endpoint: string, checkedMethod: string | null): EndpointRecord | undefined {
  const mains = records.filter((record) => record.url === endpoint);
  const checked = checkedMethod?.toUpperCase();
  return mains.find((record) => (record.method ?? 'GET').toUpperCase() === checked) ?? mains[0];
}

/**
 * The sample request for the main endpoint, sent with its listed method, and the comment saying what to expect:
 * the 402, which kind of payment client answers it, and in which asset on which chain.
 */
export function toCurl(service: Pick<Service, 'endpoint' | 'rails' | 'assets' | 'chains'>, method: string | null = null): CurlSample {
  const flag = method && method.toUpperCase() !== 'GET' ? ` -X ${shellQuote(method.toUpperCase())}` : '';
  const command = `curl -i ${shellQuote(service.endpoint)}${flag}`;
  const params = listTemplateParams(service.endpoint);
  const x402 = service.rails.includes('x402');
  const mpp = service.rails.includes('mpp');
  const challenge = x402 && mpp
    ? 'an x402 challenge (PAYMENT-REQUIRED) and an MPP challenge (WWW-Authenticate: Payment)'
    : mpp
      ? 'an MPP challenge (WWW-Authenticate: Payment)'
      : 'an x402 payment challenge';
  const client = x402 && mpp ? 'an x402 or MPP client' : mpp ? 'an MPP client' : 'an x402 client';
  const asset = service.assets.length > 0 ? joinWords(service.assets) : 'the asset it names';
  const chain = service.chains.length > 0 ? ` on ${joinWords(service.chains)}` : '';
  return {
    command,
    comment: `# Expect HTTP 402 Payment Required with ${challenge}; pay with ${client} in ${asset}${chain}.`,
    note: params.length === 0
      ? null
      : `# A URL template, not runnable as is: replace ${joinWords(params)} with ${params.length === 1 ? 'a real value' : 'real values'} first.`,
  };
}

function toEndpointPage(service: Service, facts: ListingFacts, main: EndpointRecord | undefined, lastProbe: ProbeRecord | undefined): EndpointPageView {
  const unprobeable = !/^https?:\/\//i.test(service.endpoint);
  const mainCheck: EndpointCheck | null = lastProbe
    ? { at: lastProbe.probed_at, ok: lastProbe.ok, status_code: lastProbe.status_code, latency_ms: lastProbe.latency_ms, reason: lastProbe.reason }
    : null;
  const { total, page } = facts;
  const pages = Math.max(1, Math.ceil(total / ENDPOINTS_PER_PAGE));
  const from = total === 0 ? 0 : (page - 1) * ENDPOINTS_PER_PAGE + 1;
  const to = Math.min(total, page * ENDPOINTS_PER_PAGE);
  const baseUrl = toBaseUrl(service.endpoint);
  const hrefOf = (number: number) => toEndpointPagePath(service.id, number);
  return {
    total,
    page,
    pages,
    showing: total === 0 ? 'Showing 0 of 0 endpoints' : `Showing ${from === to ? from : `${from}–${to}`} of ${plural(total, 'endpoint')}`,
    rows: facts.records.map((record) => ({
      method: record.method ? record.method.toUpperCase() : '—',
      target: { text: toPathOrUrl(record.url, baseUrl), href: toSafeHref(record.url) },
      price: formatUsd(record.price.usd) ?? 'No price listed',
      description: record.description?.trim() || '—',
      mainLabel: record !== main ? null : /^https?:\/\//i.test(record.url) ? 'main, checked' : 'main',
      check: toEndpointCheck(record === main ? mainCheck : record.last_check, unprobeable || !/^https?:\/\//i.test(record.url)),
    })),
    links: Array.from({ length: pages }, (_, index) => ({ number: index + 1, href: hrefOf(index + 1), current: index + 1 === page })),
    prevHref: page > 1 ? hrefOf(page - 1) : null,
    nextHref: page < pages ? hrefOf(page + 1) : null,
  };
}

/**
 * The path of page `page` of a service's endpoint rows: the listing page itself for the first.
 * @example toEndpointPagePath('api-example-com', 2) // '/services/api-example-com/endpoints/2'
 */
export function toEndpointPagePath(id: string, page: number): string {
  return page <= 1 ? `/services/${id}` : `/services/${id}/endpoints/${page}`;
}

/**
 * The last checks, counted in words: `the last check`, `the last 3 checks`.
 * @example toLastChecks(1) // 'the last check'
 */
export function toLastChecks(count: number): string {
  return count === 1 ? 'the last check' : `the last ${plural(count, 'check')}`;
}

function toSummary(last: ProbeRecord | undefined, unprobeable: boolean): string {
  if (!last) return unprobeable ? 'Never checked, and never will be (see below).' : 'The first check runs with the next probe pass.';
  const facts = [last.status_code === null ? null : `HTTP ${last.status_code}`, last.latency_ms === null ? null : `${last.latency_ms} ms`]
    .filter((fact) => fact !== null);
  const when = `on the last check, ${formatUtc(last.probed_at) ?? last.probed_at}`;
  const detail = facts.length > 0 ? ` (${facts.join(', ')})` : '';
  return last.ok ? `${when}${detail}.` : `${when}${detail}: ${last.reason ?? 'no payment challenge in the answer.'}`;
}

function toRecentCheck(probe: ProbeRecord): RecentCheckView {
  return {
    time: formatUtc(probe.probed_at) ?? probe.probed_at,
    iso: probe.probed_at,
    result: probe.ok ? CHALLENGE_DETECTED : NO_CHALLENGE,
    status: probe.status_code === null ? '—' : String(probe.status_code),
    ms: probe.latency_ms === null ? '—' : String(probe.latency_ms),
    reason: probe.ok ? '' : probe.reason ?? 'No payment challenge in the answer.',
  };
}

/** The owner fact of a listing page: fields the owner set are named, so a reader knows whose words they are. */
function toOwnerFact(owner: OwnerView | null): ListingView['owner'] {
  if (!owner) return null;
  const fields = owner.edited.filter((field) => field !== 'docs_url').map((field) => field.replace('_', ' '));
  const text = `Verified ${owner.verified_at.slice(0, 10)}${fields.length > 0 ? `; set by the owner: ${fields.join(', ')}` : ''}`;
  return { text, docs: owner.docs_url ? { text: owner.docs_url, href: toSafeHref(owner.docs_url) } : null };
}


/**
 * The claim request an owner sends for this service (ids are slugs, safe inside the quotes), and the owners page.
 * @example toClaim('https://index.example', 'api-example-com').href // '/owners#claim'
 */
function toClaim(siteUrl: string, id: string): ListingView['claim'] {
  return {
    href: '/owners#claim',
    command: `curl -X POST ${siteUrl}/api/v1/claims -H 'content-type: application/json' -d '{"service_id": "${id}"}'`,
  };
}
