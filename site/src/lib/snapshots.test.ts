import { describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.ts';
import { ServiceDetail, ServiceList, Stats } from '../../../domain/schemas.ts';
import { testConfig } from '../../../api/testing.ts';
import { FIXTURE_NOW, openFixtureDatabase } from '../../testing.ts';
import { toServicesSnapshot, toServiceSnapshot, toStatsSnapshot, writeServicesSnapshot } from './snapshots.ts';
import { openTestDatabase } from '../../../data/testing.ts';

describe('snapshots.ts', () => {
  const db = openFixtureDatabase();
  const app = createApp({ db, config: testConfig(), now: () => FIXTURE_NOW });
  const api = async (path: string) => (await app.request(path)).json();

  it('writes the whole index in the list shape, agreeing with the list API', async () => {
    const snapshot = toServicesSnapshot(db, FIXTURE_NOW.toISOString());
    expect(ServiceList.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.page).toEqual({ limit: 6, offset: 0, next_offset: null, sort: 'quality', ignored: [] });
    const live = await api('/api/v1/services?limit=500');
    expect(snapshot.services).toEqual(live.services);
    expect(snapshot.counts).toEqual(live.counts);
    expect(snapshot.generated_at).toBe(live.generated_at);
  });

  it('writes stats and each service in the detail shape exactly as the API answers them', async () => {
    expect(toStatsSnapshot(db, FIXTURE_NOW.toISOString())).toEqual(Stats.parse(await api('/api/v1/stats')));
    for (const id of ['alpha-example-com', 'fresh-example-com', 'shop-example', 'many-example-com']) {
      expect(toServiceSnapshot(db, id)).toEqual(ServiceDetail.parse(await api(`/api/v1/services/${id}`)));
    }
    expect(toServiceSnapshot(db, 'no-such-service')).toBeNull();
  });

  it('caps the list shape at 500 per page but still holds every service', () => {
    const big = openFixtureDatabase(Array.from({ length: 600 }, (_, k) => ({
      ...toServiceSnapshot(db, 'fresh-example-com')!, id: `extra-${k}`, endpoints: [],
      sources: [], endpoint: `https://extra-${k}.example/pay`,
    })));
    const snapshot = toServicesSnapshot(big, FIXTURE_NOW.toISOString());
    expect(snapshot.services).toHaveLength(606);
    expect(snapshot.page.limit).toBe(500);
    // Written in pieces (two batches here), the same bytes as the whole snapshot at once.
    const pieces: string[] = [];
    writeServicesSnapshot(big, FIXTURE_NOW.toISOString(), (piece) => pieces.push(piece));
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(JSON.stringify(snapshot));
  });

  it('writes the whole index in pieces as the same bytes as at once, an empty index too', () => {
    for (const source of [db, openTestDatabase()]) {
      const pieces: string[] = [];
      writeServicesSnapshot(source, FIXTURE_NOW.toISOString(), (piece) => pieces.push(piece));
      expect(pieces.join('')).toBe(JSON.stringify(toServicesSnapshot(source, FIXTURE_NOW.toISOString())));
    }
  });
});
