/**
 * How the directories a service was found in are named on the pages. Kinds come from the crawler's sources
 * (crawler/discovered.ts); a kind not named here is shown as stored.
 */
const DIRECTORY_NAMES: Record<string, string> = {
  catalog: 'Purchase preview catalog (this index)',
  'mpp.dev': 'mpp.dev service directory',
  bazaar: 'x402 Bazaar (facilitator discovery)',
  wellknown: "The host's own /.well-known listing",
  submission: 'Submitted to this index',
  open402: 'Open 402 Directory',
  acp: 'ACP merchant announcement',
};

/**
 * The readable name of a directory kind.
 * @example toDirectoryName('open402') // 'Open 402 Directory'
 */
export function toDirectoryName(kind: string): string {
  return DIRECTORY_NAMES[kind] ?? kind;
}

const RAIL_LABELS: Record<string, string> = { x402: 'x402', mpp: 'MPP', acp: 'ACP' };

/**
 * The label of a payment rail.
 * @example toRailLabel('mpp') // 'MPP'
 */
export function toRailLabel(rail: string): string {
  return RAIL_LABELS[rail] ?? rail;
}
