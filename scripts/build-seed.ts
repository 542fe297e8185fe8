/**
 * Builds the embedded default dataset `data/seed/services.json` from directory snapshots.
 *
 * Usage: `npm run seed:build [-- <data dir>]` (default `../shared/data` from the project root). Reads
 * mpp-services.json, bazaar-resources.json and open-402-snapshot.json from that folder, plus the curated
 * `crawler/sources/acp-merchants.json`, runs the source parsers and `toServices`, and writes
 * `{ built_from, services }`. Directory data only: no liveness, no probes, no timestamps, so a rebuild from the
 * same inputs is byte-identical.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceInput } from '../data/types.ts';
import { toServices } from '../crawler/dedupe.ts';
import type { DiscoveredEndpoint, ParseDirectory, SourceKind } from '../crawler/discovered.ts';
import { parse as parseAcp } from '../crawler/sources/acp.ts';
import { parse as parseBazaar } from '../crawler/sources/bazaar.ts';
import { parse as parseMpp } from '../crawler/sources/mpp.ts';
import { parse as parseOpen402 } from '../crawler/sources/open402.ts';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SEED_PATH = resolve(PROJECT_ROOT, 'data/seed/services.json');
const ACP_MERCHANTS_PATH = resolve(PROJECT_ROOT, 'crawler/sources/acp-merchants.json');

interface SeedInput {
  source: SourceKind;
  path: string;
  parse: ParseDirectory;
  /** The live directory this snapshot has the shape of; it becomes each listing's source URL. */
  directory_url: string | null;
  upstream: { repository: string; path: string; commit: string; licence: string } | null;
}

function listSeedInputs(dataDir: string): SeedInput[] {
  return [
    {
      source: 'mpp.dev',
      path: resolve(dataDir, 'mpp-services.json'),
      parse: parseMpp,
      directory_url: 'https://mpp.dev/api/services',
      upstream: {
        repository: 'tempoxyz/mpp',
        path: 'schemas/services.ts',
        commit: '2f8740e55097a7aafd2ca54108b8fcd8147ebf3c',
        licence: 'MIT OR Apache-2.0',
      },
    },
    {
      source: 'bazaar',
      path: resolve(dataDir, 'bazaar-resources.json'),
      parse: parseBazaar,
      directory_url: 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources',
      upstream: {
        repository: 'tyler-james-bridges/x402-indexer',
        path: 'data/x402-index.json',
        commit: '88d1586c7286efce7f43aad8064f89c567ffa43c',
        licence: 'MIT',
      },
    },
    {
      source: 'open402',
      path: resolve(dataDir, 'open-402-snapshot.json'),
      parse: parseOpen402,
      directory_url:
        'https://raw.githubusercontent.com/ArcedeDev/open-402/7f4c7111a0b8fc3d6ce60fd17485e9564a9cde19/registry/snapshot.json',
      upstream: {
        repository: 'ArcedeDev/open-402',
        path: 'registry/snapshot.json',
        commit: '7f4c7111a0b8fc3d6ce60fd17485e9564a9cde19',
        licence: 'MIT',
      },
    },
    { source: 'acp', path: ACP_MERCHANTS_PATH, parse: parseAcp, directory_url: null, upstream: null },
  ];
}

function readSeedInput(input: SeedInput): { endpoints: DiscoveredEndpoint[]; record: object } {
  const text = readFileSync(input.path, 'utf8');
  const { endpoints, skipped } = input.parse(JSON.parse(text), input.directory_url);
  console.log(`${input.source}: ${endpoints.length} endpoints, ${skipped} skipped (${input.path})`);
  const record = {
    source: input.source,
    file: input.upstream === null ? relative(PROJECT_ROOT, input.path) : basename(input.path),
    sha256: createHash('sha256').update(text).digest('hex'),
    directory_url: input.directory_url,
    upstream: input.upstream,
    endpoints: endpoints.length,
    skipped,
  };
  return { endpoints, record };
}

function summarize(services: ServiceInput[]): string {
  const count = (test: (s: ServiceInput) => boolean): number => services.filter(test).length;
  const distinct = (pick: (s: ServiceInput) => string[]): number => new Set(services.flatMap(pick)).size;
  return [
    `services: ${services.length}`,
    `x402: ${count((s) => s.rails.includes('x402'))}, mpp: ${count((s) => s.rails.includes('mpp'))}, acp: ${count((s) => s.rails.includes('acp'))}`,
    `dual-rail: ${count((s) => s.rails.length >= 2)}`,
    `endpoints: ${services.reduce((n, s) => n + s.endpoints.length, 0)}`,
    `chains: ${distinct((s) => s.chains)}, assets: ${distinct((s) => s.assets)}`,
  ].join('\n');
}

function buildSeed(dataDir: string): void {
  const read = listSeedInputs(dataDir).map(readSeedInput);
  const services = toServices(read.flatMap((r) => r.endpoints));
  const seed = { built_from: read.map((r) => r.record), services };
  mkdirSync(dirname(SEED_PATH), { recursive: true });
  writeFileSync(SEED_PATH, `${JSON.stringify(seed, null, 1)}\n`);
  console.log(`${summarize(services)}\nwrote ${relative(PROJECT_ROOT, SEED_PATH)}`);
}

buildSeed(resolve(process.argv[2] ?? resolve(PROJECT_ROOT, '../shared/data')));
