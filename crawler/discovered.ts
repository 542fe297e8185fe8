/**
 * What a directory says about one endpoint, before deduplication by host (`dedupe.ts`).
 * Every source module exports a `parse` of type `ParseDirectory`, so a crawl can treat sources as a list.
 */
import type { EndpointInput, Price, Rail } from '../data/types.ts';
import type { SourceKind } from '../domain/schemas.ts';

export type { SourceKind };

/** How to call an endpoint and how to pay it, as `data/` keeps them (route template, docs, tags, offers, input, output). */
type CallFacts = Pick<EndpointInput, 'route_template' | 'docs_url' | 'tags' | 'offers' | 'input' | 'output'>;

export interface DiscoveredEndpoint extends CallFacts {
  source: SourceKind;
  /** Where this listing can be read (the directory page, or the announcement for ACP), when known. */
  source_url: string | null;
  /** The URL to call (and probe); `acp://<domain>` for ACP merchants. */
  url: string;
  /** Upper-case HTTP method the directory advertises, or null when it gives none. */
  method: string | null;
  /** What this endpoint does, when the directory says. */
  description: string | null;
  service_name: string | null;
  service_category: string | null;
  service_description: string | null;
  rails: Rail[];
  chains: string[];
  assets: string[];
  price: Price;
  facilitator: string | null;
  /** An example request body, when the directory gives one (Bazaar `info.input.body`). */
  example_body?: unknown;
  /** The service's id when its host must not decide it (the index's own catalog, on whatever port it runs). */
  service_id?: string;
}

/** A parse of one directory document: the endpoints found and how many malformed items were skipped. */
export interface ParseResult {
  endpoints: DiscoveredEndpoint[];
  skipped: number;
}

/** The shape every `crawler/sources/*.ts` module exports as `parse`; it never throws on malformed input. */
export type ParseDirectory = (json: unknown, sourceUrl: string | null) => ParseResult;
