/**
 * `npm run crawl`: one crawl of the configured directories (or those given with --source KIND=URL; the index's own
 * purchase catalog is added when STAGING_URL names the server, as `npm start` does), a probe pass,
 * the submission queue; a progress display on a terminal, a log line every few seconds otherwise, a summary at the end.
 * Exits 0 when the crawl ran, even if some directories or services failed; 2 on bad arguments or a database that
 * cannot be written; 1 when every directory failed.
 */
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { readConfig } from '../api/config.ts';
import { DEMO_SERVICES } from '../api/demo/registry.ts';
import { openDatabase } from '../data/db.ts';
import { CRAWL_PROCESS } from '../processes.ts';
import { DEFAULT_DIRECTORIES, toDirectoryConfig } from '../crawler/directories.ts';
import { describeFailedDirectories } from '../crawler/discover.ts';
import { createProbeAgent } from '../crawler/probe.ts';
import { runCrawl, type CrawlSummary } from '../crawler/run.ts';
import { parse as parseAcp } from '../crawler/sources/acp.ts';
import acpMerchants from '../crawler/sources/acp-merchants.json' with { type: 'json' };

const LOG_EVERY_MS = 5_000;

function readArguments() {
  const { values } = parseArgs({
    options: {
      source: { type: 'string', multiple: true },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      'no-probe': { type: 'boolean', default: false },
      'probe-only': { type: 'boolean', default: false },
      'timeout-ms': { type: 'string' },
      'check-budget': { type: 'string' },
      brief: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const positive = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} wants a whole number above 0, got "${value}"`);
    return number;
  };
  const budget = values['check-budget'];
  if (budget !== undefined && !/^\d+$/.test(budget)) throw new Error(`--check-budget wants a whole number, 0 or more, got "${budget}"`);
  if (values['no-probe'] && values['probe-only']) throw new Error('--no-probe and --probe-only exclude each other');
  return {
    directories: values.source ? values.source.map(toDirectoryConfig) : DEFAULT_DIRECTORIES,
    limit: positive('limit', values.limit),
    concurrency: positive('concurrency', values.concurrency),
    timeoutMs: positive('timeout-ms', values['timeout-ms']),
    ...(budget === undefined ? {} : { checkBudget: Number(budget) }),
    discover: !values['probe-only'],
    probe: !values['no-probe'],
    brief: values.brief,
  };
}

function createProgress() {
  if (!process.stderr.isTTY) {
    let last = 0;
    return (done: number, total: number) => {
      if (Date.now() - last < LOG_EVERY_MS && done < total) return;
      last = Date.now();
      console.error(`probes: ${done}/${total}`);
    };
  }
  const bar = new SingleBar({ format: 'probes |{bar}| {value}/{total} {percentage}% | {rate}/s | ETA {eta_formatted}', hideCursor: true }, Presets.shades_classic);
  const started = Date.now();
  return (done: number, total: number) => {
    if (done === 1) bar.start(total, 0, { rate: '0' });
    bar.update(done, { rate: (done / ((Date.now() - started) / 1000)).toFixed(1) });
    if (done === total) bar.stop();
  };
}

/** With `brief` (npm start's schedule), the directories that failed are one line and those read are not listed. */
function printSummary(summary: CrawlSummary, brief: boolean): void {
  const { discovery, probes, submissions } = summary;
  const failed = brief && discovery ? describeFailedDirectories(discovery.directories) : null;
  if (failed) console.log(failed);
  for (const d of brief ? [] : discovery?.directories ?? []) {
    const read = `${d.endpoints} endpoints, ${d.skipped} skipped, ${d.pages} page(s)`;
    const outcome = !d.error ? read : d.pages > 0 ? `${read}, then FAILED (${d.error}); none of its listings is dropped` : `FAILED (${d.error})`;
    console.log(`${d.kind.padEnd(8)} ${d.url}: ${outcome}`);
  }
  if (discovery) console.log(`services: ${discovery.services.found} found, ${discovery.services.new} new, ${discovery.services.updated} updated`);
  if (probes) {
    console.log(`probes: ${probes.probed}, live ${probes.live}, not live ${probes.probed - probes.live}, not probed ${probes.not_probed} (${probes.concurrency} in flight at most)`);
    console.log(`checks: ${probes.endpoint_checks} listed endpoints, ${probes.wildcard_checks} random paths`);
    for (const [reason, count] of Object.entries(probes.not_live).sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(6)}  ${reason}`);
  }
  if (summary.facilitators) console.log(`facilitators: ${summary.facilitators.checked} checked, ${summary.facilitators.live} answered /supported`);
  if (submissions) console.log(`submissions: ${submissions.probed} probed, ${submissions.listed} listed, ${submissions.still_queued} still queued, ${submissions.rejected} rejected`);
}

async function main(): Promise<number> {
  let args: ReturnType<typeof readArguments>;
  let config: ReturnType<typeof readConfig>;
  try {
    args = readArguments();
    config = readConfig(process.env);
  } catch (error) {
    console.error(`crawl: ${(error as Error).message}`);
    return 2;
  }
  let db;
  try {
    db = openDatabase(config.databasePath, { cacheKiB: CRAWL_PROCESS.databaseCacheKiB });
    db.exec('BEGIN IMMEDIATE; ROLLBACK');
  } catch (error) {
    console.error(`crawl: cannot write the database ${config.databasePath}: ${(error as Error).message}`);
    return 2;
  }
  const staging = config.stagingUrl?.replace(/\/+$/, '') ?? null;
  const ownServiceUrls = staging === null ? [] : DEMO_SERVICES.map((service) => `${staging}${service.path}`);
  const agent = createProbeAgent({ allow: config.allowPrivateTargets, ownServiceUrls });
  const ownCatalog = config.stagingUrl && args.directories === DEFAULT_DIRECTORIES
    ? [toDirectoryConfig(`catalog=${config.stagingUrl}/api/v1/purchase`)]
    : [];
  try {
    const summary = await runCrawl(db, {
      ...args,
      directories: [...args.directories, ...ownCatalog],
      agent,
      facilitators: [config.facilitatorUrl],
      extra: args.discover ? parseAcp(acpMerchants, null).endpoints : [],
      now: () => new Date(),
      onPhase: (phase) => console.error(`${phase}...`),
      onProbe: createProgress(),
    });
    printSummary(summary, args.brief);
    const directories = summary.discovery?.directories ?? [];
    return directories.length > 0 && directories.every((d) => d.error) ? 1 : 0;
  } finally {
    await agent.dispatcher.close();
    db.close();
  }
}

// Exit as soon as the summary is out: DNS lookups of unreachable hosts may still sit in the thread pool after
// their probes gave up, and would hold the process (and the page refresh that waits for it) for minutes.
process.exit(await main());
