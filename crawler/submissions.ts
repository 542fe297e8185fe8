import type { DB } from '../data/db.ts';
import type { ServiceInput } from '../data/types.ts';
import { recordProbe } from '../data/probes.ts';
import { getServiceInput, upsertServices } from '../data/services.ts';
import { isDelisted } from '../data/owner-edits.ts';
import { listQueuedSubmissions, markSubmissionListed, recordSubmissionFailure, rejectSubmission, type QueuedSubmission } from '../data/submissions.ts';
import { toServices } from './dedupe.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { fetchJson } from './fetch-json.ts';
import { mergeWithStored } from './merge.ts';
import { UNKNOWN_PRICE } from './normalize.ts';
import { probeEndpoint, type ProbeAgent } from './probe.ts';
import { readText } from './sources/read.ts';
import { parseOpenApi, parseWellKnown } from './sources/wellknown.ts';
import { assertPublicUrl } from '../net/guard.ts';

export interface SubmissionsSummary {
  probed: number;
  listed: number;
  still_queued: number;
  rejected: number;
}

export interface SubmissionsOptions {
  agent: ProbeAgent;
  timeoutMs?: number;
  now: () => Date;
}

/**
 * Probes every queued submission (a bare origin is first expanded through its `/.well-known/x402` or
 * `/openapi.json`): a valid challenge lists it as a service with source `submission`; otherwise the reason is
 * kept, and the third failed crawl over at least 24 h rejects it.
 * @example await processSubmissions(db, { agent, now: () => new Date() });
 */
export async function processSubmissions(db: DB, options: SubmissionsOptions): Promise<SubmissionsSummary> {
  const summary: SubmissionsSummary = { probed: 0, listed: 0, still_queued: 0, rejected: 0 };
  for (const submission of listQueuedSubmissions(db)) {
    const endpoints = await expand(submission, options.agent);
    const main = toServices(endpoints)[0];
    const at = options.now().toISOString();
    if (!main) {
      countFailure(summary, recordSubmissionFailure(db, submission.id, 'no endpoint found at the origin', at));
      continue;
    }
    if (isDelisted(db, main.id)) {
      rejectSubmission(db, submission.id, 'its host was delisted by its owner or an operator', at);
      summary.rejected += 1;
      continue;
    }
    const outcome = await probeEndpoint({ url: main.endpoint, method: main.endpoints[0]?.method, body: main.endpoints[0]?.example_body }, { agent: options.agent, timeoutMs: options.timeoutMs, now: options.now });
    summary.probed += 1;
    if (!outcome.ok || !outcome.terms) {
      countFailure(summary, recordSubmissionFailure(db, submission.id, outcome.reason ?? 'no challenge detected', at));
      continue;
    }
    const service = mergeWithStored(main, getServiceInput(db, main.id), new Set(['submission']));
    upsertServices(db, [service], at);
    // A page's checks are of its main endpoint: on a host indexed under another one, the submitted endpoint is
    // listed, and the next probe pass checks the main one.
    if (service.endpoint === main.endpoint) recordProbe(db, { service_id: service.id, ...outcome });
    markSubmissionListed(db, submission.id, service.id, at);
    summary.listed += 1;
  }
  return summary;
}

function countFailure(summary: SubmissionsSummary, status: string): void {
  if (status === 'rejected') summary.rejected += 1;
  else summary.still_queued += 1;
}

async function expand(submission: QueuedSubmission, agent: ProbeAgent): Promise<DiscoveredEndpoint[]> {
  const url = new URL(submission.endpoint);
  const asSubmitted = [toSubmitted(submission, url.href)];
  if (url.pathname !== '/' || url.search !== '') return asSubmitted;
  const documents: Array<[string, (json: unknown, origin: string) => DiscoveredEndpoint[]]> = [
    ['/.well-known/x402', parseWellKnown],
    ['/openapi.json', parseOpenApi],
  ];
  for (const [path, parse] of documents) {
    try {
      const documentUrl = await assertPublicUrl(`${url.origin}${path}`, { allow: agent.allow, resolve: false });
      const found = parse(await fetchJson(documentUrl.href, { dispatcher: agent.dispatcher, timeoutMs: 10_000, maxBytes: 1024 * 1024 }), url.origin);
      if (found.length > 0) return found.map((e) => ({ ...e, source: 'submission', service_name: readText(submission.name) }));
    } catch {
      // An origin without discovery documents is probed as submitted.
    }
  }
  return asSubmitted;
}

/**
 * A submission as the service it would be listed as (its host, the endpoint as submitted), for an operator's approval.
 * @example approveSubmission(db, id, toSubmittedService(submission), now)
 */
export function toSubmittedService(submission: Pick<QueuedSubmission, 'endpoint' | 'name'>): ServiceInput {
  return toServices([toSubmitted(submission, new URL(submission.endpoint).href)])[0]!;
}

function toSubmitted(submission: Pick<QueuedSubmission, 'endpoint' | 'name'>, url: string): DiscoveredEndpoint {
  return {
    source: 'submission', source_url: null, url, method: null, description: null,
    service_name: readText(submission.name), service_category: null, service_description: null,
    rails: [], chains: [], assets: [], price: UNKNOWN_PRICE, facilitator: null,
  };
}
