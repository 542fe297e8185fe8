import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Change } from '../domain/schemas.ts';
import { listChanges, pruneChanges, recentChanges, recordChange } from './changes.ts';
import { openDatabase, type DB } from './db.ts';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

let dir: string;
let db: DB;

function open(): DB {
  dir = mkdtempSync(join(tmpdir(), 'psi-changes-'));
  db = openDatabase(join(dir, 'index.db'));
  return db;
}

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const wentLive = (service_id: string, at = NOW.toISOString()) =>
  recordChange(db, { at, service_id, type: 'went_live', summary: 'Went live.', before: { live: false }, after: { live: true } });

describe('the change log', () => {
  it('gives each change an id that sorts as a string in the order the changes were made', () => {
    open();
    const ids = Array.from({ length: 12 }, (_, i) => wentLive(`s-${i}`).id);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toBe('000000000001');
    const read = listChanges(db, { limit: 100 }).changes;
    expect(read.map((change) => change.id)).toEqual(ids);
    for (const change of read) expect(Change.parse(change)).toEqual(change);
    expect(read[0]).toMatchObject({ before: { live: false }, after: { live: true }, type: 'went_live' });
  });

  it('pages after a cursor with next_after null on the last page, filtered by service and type', () => {
    open();
    for (let i = 0; i < 5; i++) wentLive('a');
    recordChange(db, { at: NOW.toISOString(), service_id: 'b', type: 'listed', summary: 'Listed.' });
    const first = listChanges(db, { limit: 2 });
    expect(first.changes).toHaveLength(2);
    const second = listChanges(db, { after: first.next_after, limit: 2 });
    expect(second.changes[0]!.id > first.changes[1]!.id).toBe(true);
    const rest = listChanges(db, { after: second.next_after, limit: 2 });
    expect(rest.changes).toHaveLength(2);
    expect(rest.next_after).toBeNull();
    expect(listChanges(db, { service: 'b', limit: 10 }).changes.map((c) => c.type)).toEqual(['listed']);
    expect(listChanges(db, { types: ['listed', 'went_dark'], limit: 10 }).changes).toHaveLength(1);
    expect(listChanges(db, { service: 'a', types: ['listed'], limit: 10 }).changes).toHaveLength(0);
    expect(recentChanges(db, 2, 'a').map((c) => c.id)).toEqual(['000000000005', '000000000004']);
  });

  it('keeps 90 days and never reuses an id after pruning', () => {
    open();
    wentLive('a', daysAgo(91));
    const kept = wentLive('a', daysAgo(89));
    expect(pruneChanges(db, NOW)).toBe(1);
    expect(listChanges(db, { limit: 10 }).changes.map((c) => c.id)).toEqual([kept.id]);
    db.prepare('DELETE FROM changes').run();
    expect(wentLive('a').id).toBe('000000000003');
  });

  it('is written with what it records or not at all', () => {
    open();
    const failing = db.transaction(() => {
      wentLive('a');
      throw new Error('the write it records failed');
    });
    expect(failing).toThrow();
    expect(listChanges(db, { limit: 10 }).changes).toHaveLength(0);
  });
});
