import { describe, expect, it } from 'vitest';
import { delistService } from '../data/owners.ts';
import { getService } from '../data/service-read.ts';
import { upsertServices } from '../data/services.ts';
import { getSubmission, submitService } from '../data/submissions.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { createProbeAgent } from './probe.ts';
import { processSubmissions } from './submissions.ts';
import { parseAllowList } from '../net/guard.ts';

describe('a submission of a delisted host', () => {
  it('is rejected by the crawl, with the reason, and never lists the host again', async () => {
    const db = openTestDatabase();
    const now = new Date('2026-11-01T12:00:00.000Z');
    upsertServices(db, [makeService({ id: 'gone-example-com' })], now.toISOString());
    delistService(db, 'gone-example-com', { reason: 'Retired', by: 'owner', now: now.toISOString() });
    const { submission } = submitService(db, { endpoint: 'https://gone.example.com/v2/pay', name: null, contact: null, idempotencyKey: null }, now);
    const agent = createProbeAgent({ allow: parseAllowList(undefined) });
    try {
      const summary = await processSubmissions(db, { agent, now: () => now });
      expect(summary).toMatchObject({ probed: 0, listed: 0, rejected: 1 });
    } finally {
      await agent.dispatcher.close();
    }
    expect(getSubmission(db, submission.id)).toMatchObject({ status: 'rejected', reason: 'its host was delisted by its owner or an operator' });
    expect(getService(db, 'gone-example-com')).toBeNull();
  });
});
