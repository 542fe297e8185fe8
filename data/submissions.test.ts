import { describe, expect, it } from 'vitest';
import { getSubmission, submitService, toEndpointKey } from './submissions.ts';
import { openTestDatabase } from './testing.ts';

const at = (iso: string) => new Date(iso);
const input = (endpoint: string, idempotencyKey: string | null = null) => ({ endpoint, name: 'X', contact: 'ops@x.test', idempotencyKey });

describe('submissions', () => {
  it('normalizes the endpoint key', () => {
    expect(toEndpointKey('HTTPS://API.Example.com:443/x/#frag')).toBe('https://api.example.com/x');
    expect(toEndpointKey('http://a.test:8080/?b=1')).toBe('http://a.test:8080?b=1');
    expect(toEndpointKey('http://a.test/A/b')).toBe('http://a.test/A/b');
  });

  it('dedupes the same endpoint within 24 hours and queues it again after', () => {
    const db = openTestDatabase();
    const first = submitService(db, input('https://a.test/x'), at('2026-11-01T00:00:00Z'));
    const again = submitService(db, input('https://A.test/x/'), at('2026-11-01T23:59:00Z'));
    const later = submitService(db, input('https://a.test/x'), at('2026-11-02T00:00:01Z'));
    expect(first.deduplicated).toBe(false);
    expect(again).toEqual({ deduplicated: true, submission: first.submission });
    expect(later.deduplicated).toBe(false);
    expect(later.submission.id).not.toBe(first.submission.id);
  });

  it('dedupes by Idempotency-Key whatever the endpoint, and never exposes the contact', () => {
    const db = openTestDatabase();
    const first = submitService(db, input('https://a.test/x', 'key-1'), at('2026-11-01T00:00:00Z'));
    const again = submitService(db, input('https://b.test/y', 'key-1'), at('2026-11-05T00:00:00Z'));
    expect(again.deduplicated).toBe(true);
    expect(again.submission.endpoint).toBe('https://a.test/x');
    const stored = getSubmission(db, first.submission.id);
    expect(stored).toMatchObject({ status: 'queued', attempts: 0, reason: null, service_id: null });
    expect(JSON.stringify(stored)).not.toContain('ops@x.test');
    expect(getSubmission(db, 'sub_nope')).toBeNull();
  });

  it('remembers a key whose first use echoed an earlier submission of the endpoint, past the 24 hours', () => {
    const db = openTestDatabase();
    const first = submitService(db, input('https://a.test/x'), at('2026-11-01T00:00:00Z'));
    const keyed = submitService(db, input('https://a.test/x', 'key-2'), at('2026-11-01T01:00:00Z'));
    expect(keyed).toEqual({ deduplicated: true, submission: first.submission });
    const retried = submitService(db, input('https://a.test/x', 'key-2'), at('2026-11-03T00:00:00Z'));
    expect(retried).toEqual({ deduplicated: true, submission: first.submission });
    expect(submitService(db, input('https://a.test/x'), at('2026-11-03T00:00:01Z')).deduplicated).toBe(false);
  });
});
