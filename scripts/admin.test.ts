import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { digestSecret } from '../api/bearer.ts';
import { listChanges } from '../data/changes.ts';
import { createClaim } from '../data/claims.ts';
import { openDatabase } from '../data/db.ts';
import { getService } from '../data/service-read.ts';
import { upsertServices } from '../data/services.ts';
import { getSubmission, submitService } from '../data/submissions.ts';
import { makeService } from '../data/testing.ts';
import { PROJECT_ROOT } from '../project.ts';

/** `npm run admin` as an operator runs it: a child process on a real database file. */

const dir = mkdtempSync(join(tmpdir(), 'psi-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = promisify(execFile);

async function admin(databasePath: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
      cwd: PROJECT_ROOT, env: { ...process.env, DATABASE_PATH: databasePath },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function makeDatabase(name: string) {
  const path = join(dir, `${name}.db`);
  const db = openDatabase(path);
  const now = new Date();
  upsertServices(db, [makeService({ id: 'a-example-com', name: 'Alpha' }), makeService({ id: 'b-example-com' })], now.toISOString(), { changes: false });
  const queued = submitService(db, { endpoint: 'https://new.example.org/pay', name: 'New \u001b[31mRed', contact: 'ops@new.example', idempotencyKey: null }, now).submission;
  const other = submitService(db, { endpoint: 'https://spam.example.net/pay', name: null, contact: null, idempotencyKey: null }, now).submission;
  const claim = createClaim(db, { service_id: 'a-example-com', secret_digest: digestSecret('clms_test').toString('hex'), client: '203.0.113.5', now });
  db.close();
  return { path, queued: queued.id, other: other.id, claim };
}

describe('npm run admin', { timeout: 240_000 }, () => {
  it('lists submissions as a table and as JSON, filtered by status', async () => {
    const { path, queued } = makeDatabase('list');
    const table = await admin(path, 'submissions');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+status\s+attempts\s+endpoint\s+name\s+reason\s+created_at$/);
    expect(table.stdout).toContain(queued);
    expect(table.stdout).not.toContain('\u001b');
    const json = JSON.parse((await admin(path, 'submissions', '--status', 'queued', '--json')).stdout);
    expect(json.map((s: { endpoint: string }) => s.endpoint).sort()).toEqual(['https://new.example.org/pay', 'https://spam.example.net/pay']);
    expect(json[0].contact !== undefined).toBe(true);
    expect(JSON.parse((await admin(path, 'submissions', '--status', 'listed', '--json')).stdout)).toEqual([]);
    const bad = await admin(path, 'submissions', '--status', 'maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status must be one of queued, listed, rejected');
  });

  it('approves and rejects submissions, each listing a change where it lists a service', async () => {
    const { path, queued, other } = makeDatabase('moderate');
    const approved = await admin(path, 'approve', queued, '--json');
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ submission: queued, status: 'listed', service_id: 'new-example-org' });
    const rejected = await admin(path, 'reject', other, '--reason', 'Not a payable service');
    expect(rejected).toMatchObject({ code: 0 });
    expect(rejected.stdout).toContain(`${other} rejected: Not a payable service`);
    expect((await admin(path, 'reject', other)).code).toBe(2);
    const db = openDatabase(path);
    try {
      expect(getService(db, 'new-example-org')).toMatchObject({ sources: ['submission'] });
      expect(getSubmission(db, queued)).toMatchObject({ status: 'listed', service_id: 'new-example-org' });
      expect(getSubmission(db, other)).toMatchObject({ status: 'rejected', reason: 'Not a payable service' });
      expect(listChanges(db, { limit: 10 }).changes.map((c) => [c.service_id, c.type])).toEqual([['new-example-org', 'listed']]);
    } finally {
      db.close();
    }
  });

  it('delists and relists a service, each a change, and refuses what cannot be done', async () => {
    const { path } = makeDatabase('delist');
    expect((await admin(path, 'delist', 'a-example-com', '--reason', 'Reported as a scam')).stdout).toContain('a-example-com delisted: Reported as a scam');
    expect(await admin(path, 'delist', 'a-example-com', '--reason', 'again')).toMatchObject({ code: 1, stderr: expect.stringContaining('delisted already') });
    const db = openDatabase(path);
    expect(getService(db, 'a-example-com')).toBeNull();
    db.close();
    expect((await admin(path, 'relist', 'a-example-com')).code).toBe(0);
    expect(await admin(path, 'relist', 'a-example-com')).toMatchObject({ code: 1, stderr: expect.stringContaining('no delisted service') });
    const after = openDatabase(path);
    try {
      expect(getService(after, 'a-example-com')).toMatchObject({ name: 'Alpha' });
      const changes = listChanges(after, { service: 'a-example-com', limit: 10 }).changes;
      expect(changes.map((c) => c.type)).toEqual(['delisted', 'relisted']);
      expect(changes[0]).toMatchObject({ summary: 'An operator delisted it: Reported as a scam.' });
    } finally {
      after.close();
    }
  });

  it('shows invisible characters as \\u escapes in its table and JSON, rows written before the cleaning included', async () => {
    const path = join(dir, 'invisible.db');
    const db = openDatabase(path);
    const name = 'E\u202Egnp\u0000\u2066x\u2069\u0085\u200B\u001b';
    const { id } = submitService(db, { endpoint: 'https://evil.example.org/pay', name, contact: null, idempotencyKey: null }, new Date()).submission;
    db.close();
    const table = await admin(path, 'submissions');
    expect(table.stdout).toContain('E\\u202Egnp\\u0000\\u2066x\\u2069\\u0085\\u200B\\u001B');
    expect(table.stdout).not.toMatch(/[\u0000\u202E\u2066\u2069\u0085\u200B]/);
    const json = await admin(path, 'submissions', '--json');
    expect(json.stdout).not.toMatch(/[\u0000\u202E\u2066\u2069\u0085\u200B]/);
    expect(JSON.parse(json.stdout)[0]).toMatchObject({ id, name });
  });

  it('cleans an operator\'s reason before it is kept, shown or logged, and a name written before the cleaning as it lists it', async () => {
    const { path, queued, other } = makeDatabase('reasons');
    expect((await admin(path, 'approve', queued)).code).toBe(0);
    const rejected = await admin(path, 'reject', other, '--reason', '\u202ESpam\u0007 \u2066listing\u2069\r\n');
    expect(rejected.stdout).toBe(`${other} rejected: Spam listing\n`);
    const delisted = await admin(path, 'delist', 'a-example-com', '--reason', 'Scam\u001b[2J\u202D', '--json');
    expect(JSON.parse(delisted.stdout)).toMatchObject({ reason: 'Scam[2J' });
    const db = openDatabase(path);
    try {
      expect(getService(db, 'new-example-org')).toMatchObject({ name: 'New [31mRed' });
      expect(getSubmission(db, other)).toMatchObject({ reason: 'Spam listing' });
      expect(listChanges(db, { service: 'a-example-com', limit: 1 }).changes[0]).toMatchObject({ summary: 'An operator delisted it: Scam[2J.' });
    } finally {
      db.close();
    }
  });

  it('lists claims without their tokens or secrets', async () => {
    const { path, claim } = makeDatabase('claims');
    const listed = (await admin(path, 'claims', '--service', 'a-example-com', '--json')).stdout;
    const json = JSON.parse(listed);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ service_id: 'a-example-com', status: 'pending', client: '203.0.113.5' });
    expect(json[0].token).toBeUndefined();
    expect(json[0].secret_digest).toBeUndefined();
    const table = (await admin(path, 'claims')).stdout;
    expect(table).toMatch(/^id\s+service_id\s+status/);
    for (const printed of [listed, table]) {
      expect(printed).not.toContain(claim.token);
      expect(printed).not.toContain(claim.secret_digest);
    }
  });

  it('exits non-zero with a clear message for an unknown id, an unknown command, or a database it cannot open', async () => {
    const { path } = makeDatabase('errors');
    expect(await admin(path, 'approve', 'sub_nope')).toMatchObject({ code: 1, stderr: expect.stringContaining('no submission with id "sub_nope"') });
    expect(await admin(path, 'delist', 'nope', '--reason', 'x')).toMatchObject({ code: 1, stderr: expect.stringContaining('no listed service with id "nope"') });
    expect(await admin(path, 'frobnicate')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "frobnicate"') });
    const missing = await admin(join(dir, 'missing', 'index.db'), 'submissions');
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot open the database') });
    const notADatabase = join(dir, 'not-a-database.db');
    (await import('node:fs')).writeFileSync(notADatabase, 'this is not SQLite'.repeat(100));
    expect(await admin(notADatabase, 'submissions')).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot open the database') });
  });
});
