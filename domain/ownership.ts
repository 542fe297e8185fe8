/*
 * Where an owner proves control of a service's host (DESIGN.md "Owners and operators"): a file on the host and a TXT
 * record under its name. The claim route tells the owner these places; the crawler's check (crawler/ownership.ts)
 * reads them.
 */

/** Where the owner serves the token, on the host of the service's main endpoint. */
export const WELL_KNOWN_PATH = '/.well-known/payable-service-index.txt';
/** The TXT record that carries the token: this label, then the host name. */
export const TXT_LABEL = '_payable-service-index';

/**
 * Where the claim's token is expected for a service whose main endpoint is `endpoint`: the well-known file on the
 * endpoint's own origin (https for every public host; http only where ALLOW_PRIVATE_TARGETS lets a local host be
 * listed), and the TXT record name.
 * @example toOwnershipPlaces('https://api.example.com/v1/pay') // { well_known_url: 'https://api.example.com/.well-known/payable-service-index.txt', dns_name: '_payable-service-index.api.example.com' }
 */
export function toOwnershipPlaces(endpoint: string): { well_known_url: string; dns_name: string } {
  const url = new URL(endpoint);
  return { well_known_url: `${url.origin}${WELL_KNOWN_PATH}`, dns_name: `${TXT_LABEL}.${url.hostname.replace(/^\[|\]$/g, '')}` };
}
