import { request, type Dispatcher } from 'undici';
import type { DnsResolver } from '../net/dns.ts';
import { assertPublicUrl, TargetError, type AllowList } from '../net/guard.ts';
import { toOwnershipPlaces } from '../domain/ownership.ts';

/*
 * The check behind a claim (DESIGN.md "Owners and operators"): does the host serve the claim's token at its
 * well-known path, or publish it in a TXT record? Reaching out to an owner's host lives here, beside the prober, for
 * the same reason: crawler/ is the one folder that reaches services, through the SSRF guard (net/guard.ts).
 */

/** The well-known file is read for at most this long, and at most this much of it. */
export const OWNERSHIP_TIMEOUT_MS = 5_000;
export const OWNERSHIP_MAX_BYTES = 4 * 1024;
/** Redirects followed, only within the same host. */
const MAX_SAME_HOST_REDIRECTS = 3;

export interface OwnershipCheck {
  /** True when the file or the TXT record holds the token. */
  verified: boolean;
  /** What was found, in words, e.g. `the file answered HTTP 404; no TXT record at _payable-service-index.example.com`. */
  found: string;
}

export interface OwnershipCheckOptions {
  /** The guarded pool the crawl uses (createProbeAgent's `dispatcher`): every connection re-checks its address. */
  dispatcher: Dispatcher;
  allow: AllowList;
  dns: DnsResolver;
}

/**
 * Looks for the token in both places at once; verified when either holds it exactly (surrounding white space aside).
 * @example const { verified, found } = await checkOwnership('https://api.example.com/v1/pay', token, options);
 */
export async function checkOwnership(endpoint: string, token: string, options: OwnershipCheckOptions): Promise<OwnershipCheck> {
  const places = toOwnershipPlaces(endpoint);
  const [file, txt] = await Promise.all([checkFile(places.well_known_url, token, options), checkTxt(places.dns_name, token, options.dns)]);
  if (file.verified || txt.verified) return { verified: true, found: file.verified ? file.found : txt.found };
  return { verified: false, found: `${file.found}; ${txt.found}` };
}

async function checkFile(url: string, token: string, options: OwnershipCheckOptions): Promise<OwnershipCheck> {
  const signal = AbortSignal.timeout(OWNERSHIP_TIMEOUT_MS);
  let current = url;
  try {
    for (let hop = 0; hop <= MAX_SAME_HOST_REDIRECTS; hop += 1) {
      await assertPublicUrl(current, { allow: options.allow, resolve: false });
      const response = await request(current, { method: 'GET', dispatcher: options.dispatcher, signal, headers: { 'user-agent': 'payable-service-index-claims/1.0' } });
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        await response.body.dump();
        const next = new URL(location, current);
        if (next.host !== new URL(url).host) return miss(`the file at ${url} redirects to another host (${next.host})`);
        current = next.href;
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        return miss(`the file at ${url} answered HTTP ${response.statusCode}`);
      }
      const body = await readBounded(response.body);
      if (body === null) return miss(`the file at ${url} is over ${OWNERSHIP_MAX_BYTES} bytes`);
      if (body.trim() === token) return { verified: true, found: `the token at ${url}` };
      return miss(`the file at ${url} holds ${body.trim() === '' ? 'nothing' : 'another value'}, not this claim's token`);
    }
    return miss(`the file at ${url} redirects more than ${MAX_SAME_HOST_REDIRECTS} times`);
  } catch (error) {
    return miss(`the file at ${url} could not be read (${toReason(error)})`);
  }
}

async function checkTxt(name: string, token: string, dns: DnsResolver): Promise<OwnershipCheck> {
  try {
    const records = await dns.resolveTxt(name);
    if (records.some((record) => record.trim() === token)) return { verified: true, found: `the token in the TXT record ${name}` };
    return miss(`the TXT record ${name} holds ${records.length} value(s), none of them this claim's token`);
  } catch (error) {
    return miss(`no TXT record at ${name} (${toReason(error)})`);
  }
}

/** The body as text, or null when it is over the size limit (the rest is not read). */
async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > OWNERSHIP_MAX_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function miss(found: string): OwnershipCheck {
  return { verified: false, found };
}

function toReason(error: unknown): string {
  if (error instanceof TargetError) return error.message;
  const { name, code, message } = error as NodeJS.ErrnoException;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${OWNERSHIP_TIMEOUT_MS / 1000} s`;
  return code ?? message;
}
