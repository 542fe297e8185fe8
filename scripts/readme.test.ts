import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';
import { openDatabase } from '../data/db.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';
import { ERROR_CODES } from '../domain/schemas.ts';
import { PROJECT_ROOT } from '../project.ts';
import { listMcpTools } from '../site/src/lib/docs.ts';

/**
 * Every curl example in the README, run with curl itself against a fresh server on the embedded default (a new
 * database seeded from data/seed/, nothing crawled, no internet): each must answer real data, not an error and not
 * an empty list. `sub_...`, `pur_...`, `wh_...` and `whsec_...` are the ids and the secret the examples before them
 * answered, as a reader would fill in. A badge answers SVG: it holds data when it draws its text.
 */
const README_ORIGIN = 'http://127.0.0.1:4321';
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'psi-readme-'));
let origin = '';
let close: () => Promise<void>;

/** The README's shell examples that call curl, continuation lines joined, in order. */
export function readCurlExamples(readme: string): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('curl '));
}

/** A shell line's words, with single quotes as the shell reads them (the README uses no other quoting). */
function toWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** Why an answer counts as nothing, or null when it holds data. */
function emptiness(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return 'no JSON object';
  const record = body as Record<string, unknown>;
  if ('error' in record) return `an error: ${JSON.stringify(record.error)}`;
  // A list's services and a batch's found (a webhook's `services` is its filter, empty when it has none).
  for (const key of ['services', 'found'] as const) {
    if (('page' in record || 'requested' in record) && Array.isArray(record[key]) && (record[key] as unknown[]).length === 0) return `an empty "${key}"`;
  }
  return Object.keys(record).length === 0 ? 'an empty object' : null;
}

beforeAll(async () => {
  const db = openDatabase(join(dir, 'index.db'));
  seedIfEmpty(db, readSeed(), new Date().toISOString());
  const server = serveApp(createApp({ db, config: testConfig({ databasePath: join(dir, 'index.db') }), now: () => new Date(), lookup: async () => [] }), {
    hostname: '127.0.0.1',
    port: 0,
  });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = async () => {
    await server.close(true);
    db.close();
  };
});
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('the README examples', () => {
  it('each curl example answers real data on a fresh server with the embedded default', async () => {
    const examples = readCurlExamples(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    expect(examples.length).toBeGreaterThanOrEqual(15);
    const ids: Record<string, string> = {};
    const failures: string[] = [];
    for (const example of examples) {
      const line = example.replaceAll(README_ORIGIN, origin)
        .replace(/\b(sub|pur|wh|whsec)_\.\.\./g, (placeholder, prefix: string) => ids[prefix] ?? placeholder);
      const { stdout } = await run('curl', ['-sS', '--max-time', '10', '-w', '\n%{http_code}', ...toWords(line).slice(1)]);
      const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
      const text = stdout.slice(0, stdout.lastIndexOf('\n'));
      const svg = text.startsWith('<svg');
      const body = text && !svg ? JSON.parse(text) : null;
      const why = status < 200 || status >= 300 ? `HTTP ${status}` : svg ? (/<text[^>]*>[^<]+</.test(text) ? null : 'an SVG without text') : emptiness(body);
      if (why) failures.push(`${example}: ${why}`);
      for (const prefix of ['sub', 'pur', 'wh']) if (typeof body?.id === 'string' && body.id.startsWith(`${prefix}_`)) ids[prefix] = body.id;
      if (typeof body?.secret === 'string') ids.whsec = body.secret;
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

describe("the README's lists", () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const named = (text: string) => [...text.matchAll(/`(\w+)`/g)].map((match) => match[1]);

  it('names the MCP tools the server lists, in its order', () => {
    const list = /also MCP tools \(([^)]*)\)/.exec(readme)?.[1] ?? '';
    expect(named(list)).toEqual(listMcpTools());
  });

  it('names every error code the API answers, in ERROR_CODES order', () => {
    const list = /Errors are .*?the\s+code one of ([^(]*)\(/s.exec(readme)?.[1] ?? '';
    expect(named(list)).toEqual([...ERROR_CODES]);
  });
});
