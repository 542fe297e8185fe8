/**
 * The facilitator directory's checks: every facilitator the index has seen (directories name them on services; the
 * configuration names its own; checks note those challenges name) asked `GET {facilitator}/supported` at most once
 * an hour, through the SSRF guard like everything the index reaches (protocols.md section 3).
 */
import type { DB } from '../data/db.ts';
import { listDirectoryFacilitators, listFacilitatorsDue, noteFacilitators, recordFacilitatorCheck } from '../data/facilitators.ts';
import type { FacilitatorKind } from '../domain/facilitators.ts';
import { DirectoryError, fetchJson } from './fetch-json.ts';
import type { ProbeAgent } from './probe.ts';
import { isRecord, readText } from './sources/read.ts';
import { assertPublicUrl, TargetError } from '../net/guard.ts';

/** A facilitator is asked at most this often. */
export const FACILITATOR_CHECK_EVERY_MS = 3_600_000;
const SUPPORTED_TIMEOUT_MS = 10_000;
const MAX_SUPPORTED_BYTES = 256 * 1024;

export interface FacilitatorPassSummary {
  checked: number;
  live: number;
}

/**
 * Notes the configured and directory facilitators, then checks each one due.
 * @example await checkFacilitators(db, { agent, configured: [config.facilitatorUrl], now: () => new Date() })
 */
export async function checkFacilitators(db: DB, options: { agent: ProbeAgent; configured: readonly string[]; now: () => Date }): Promise<FacilitatorPassSummary> {
  const now = options.now();
  noteFacilitators(db, [
    ...options.configured.map((url) => ({ url, seenIn: 'configuration' as const })),
    ...listDirectoryFacilitators(db).map((url) => ({ url, seenIn: 'directory' as const })),
  ], now.toISOString());
  const due = listFacilitatorsDue(db, new Date(now.getTime() - FACILITATOR_CHECK_EVERY_MS).toISOString());
  let live = 0;
  for (const url of due) {
    const answer = await readSupported(url, options.agent);
    if (!('error' in answer)) live += 1;
    recordFacilitatorCheck(db, url, options.now().toISOString(), answer);
  }
  return { checked: due.length, live };
}

/** `{url}/supported` read: its kinds and extensions, or why not. */
export async function readSupported(url: string, agent: ProbeAgent): Promise<{ kinds: FacilitatorKind[]; extensions: string[] } | { error: string }> {
  const target = `${url}/supported`;
  let json: unknown;
  try {
    // Names are checked where they connect (the guarded dispatcher); literal addresses only here.
    await assertPublicUrl(target, { allow: agent.allow, resolve: false });
    json = await fetchJson(target, { dispatcher: agent.dispatcher, timeoutMs: SUPPORTED_TIMEOUT_MS, maxBytes: MAX_SUPPORTED_BYTES });
  } catch (error) {
    if (error instanceof TargetError || error instanceof DirectoryError) return { error: error.message };
    throw error;
  }
  if (!isRecord(json) || !Array.isArray(json.kinds)) return { error: 'answered no kinds' };
  return { kinds: json.kinds.flatMap(toKind), extensions: Array.isArray(json.extensions) ? json.extensions.flatMap((e) => readText(e) ?? []) : [] };
}

function toKind(value: unknown): FacilitatorKind[] {
  if (!isRecord(value)) return [];
  const scheme = readText(value.scheme);
  const network = readText(value.network);
  const version = value.x402Version;
  if (scheme === null || network === null || typeof version !== 'number' || !Number.isInteger(version)) return [];
  return [{ x402Version: version, scheme, network }];
}
