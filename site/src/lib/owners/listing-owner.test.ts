import { describe, expect, it } from 'vitest';
import { createClaim, verifyClaim } from '../../../../data/claims.ts';
import { editService } from '../../../../data/owners.ts';
import { upsertServices } from '../../../../data/services.ts';
import { makeService, openTestDatabase } from '../../../../data/testing.ts';
import { getListingView } from '../listing.ts';

const NOW = new Date('2026-11-01T12:00:00.000Z');
const OPTIONS = { siteUrl: 'https://index.test', now: NOW };

describe('the listing page of an owned service', () => {
  it('names the verified owner, the fields they set, and their docs link (https only)', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test', name: 'From a directory' })], NOW.toISOString());
    expect(getListingView(db, 'a-test', 1, OPTIONS)?.owner).toBeNull();
    const claim = createClaim(db, { service_id: 'a-test', secret_digest: 'digest', client: 'c', now: NOW });
    verifyClaim(db, claim, 'hash', NOW.toISOString());
    editService(db, 'a-test', { name: 'Owner <b>Name</b>', main_endpoint: null, docs_url: 'https://docs.a.test/' }, NOW.toISOString());
    const view = getListingView(db, 'a-test', 1, OPTIONS)!;
    expect(view.name).toBe('Owner <b>Name</b>');
    expect(view.owner).toEqual({ text: 'Verified 2026-11-01; set by the owner: name', docs: { text: 'https://docs.a.test/', href: 'https://docs.a.test/' } });
  });
});
