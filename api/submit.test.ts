import { describe, expect, it } from 'vitest';
import { parseAllowList } from '../net/guard.ts';
import { ErrorResponse, Submission, SubmitResult } from '../domain/schemas.ts';
import { createTestApp, postJson } from './testing.ts';

const submit = (body: unknown, headers: Record<string, string> = {}) => postJson(body, headers);

describe('POST /api/v1/submit', () => {
  it('queues a submission the owner can follow, without echoing the contact', async () => {
    const { request } = createTestApp();
    const { status, json } = await request('/api/v1/submit', submit({ endpoint: 'https://api.new-service.example/v1/pay', name: 'New', contact: 'me@new.example' }));
    expect(status).toBe(200);
    const result = SubmitResult.parse(json);
    expect(result).toMatchObject({ ok: true, deduplicated: false, status: 'queued' });
    expect(JSON.stringify(json)).not.toContain('me@new.example');
    const followed = await request(`/api/v1/submissions/${result.id}`);
    expect(Submission.parse(followed.json)).toMatchObject({ id: result.id, endpoint: 'https://api.new-service.example/v1/pay', name: 'New', status: 'queued', attempts: 0 });
    expect((await request('/api/v1/submissions/sub_unknown')).status).toBe(404);
  });

  it('cleans the name and contact where they enter: controls, bidi and XML-forbidden characters dropped', async () => {
    const { request, db } = createTestApp();
    const dirty = '\u0000\u0001\u001b\u000b\u000c\uFFFE\uFFFF\uD800\u0085\u009b\u202E\u2066';
    const { json } = await request('/api/v1/submit', submit({ endpoint: 'https://dirty.example/pay', name: ` Dirty${dirty} Name${dirty}\r\n`, contact: `ops${dirty}@dirty.example` }));
    const followed = Submission.parse((await request(`/api/v1/submissions/${SubmitResult.parse(json).id}`)).json);
    expect(followed.name).toBe('Dirty Name');
    expect(db.prepare('SELECT name, contact FROM submissions').get()).toEqual({ name: 'Dirty Name', contact: 'ops@dirty.example' });
    const invisible = await request('/api/v1/submit', submit({ endpoint: 'https://invisible.example/pay', name: '\u202E\u2066\u0000' }));
    expect(Submission.parse((await request(`/api/v1/submissions/${invisible.json.id}`)).json).name).toBeNull();
  });

  it('dedupes the same endpoint and the same Idempotency-Key, echoing the earlier record', async () => {
    const { request } = createTestApp();
    const first = (await request('/api/v1/submit', submit({ endpoint: 'https://a.example/pay' }, { 'idempotency-key': 'k1' }))).json;
    const sameEndpoint = (await request('/api/v1/submit', submit({ endpoint: 'HTTPS://A.EXAMPLE/pay/' }))).json;
    const sameKey = (await request('/api/v1/submit', submit({ endpoint: 'https://b.example/pay' }, { 'idempotency-key': 'k1' }))).json;
    const other = (await request('/api/v1/submit', submit({ endpoint: 'https://b.example/pay' }))).json;
    expect(sameEndpoint).toEqual({ ...first, deduplicated: true });
    expect(sameKey).toEqual({ ...first, deduplicated: true, message: expect.stringContaining('first used for https://a.example/pay') });
    expect(other.deduplicated).toBe(false);
    expect(other.id).not.toBe(first.id);
  });

  it.each([
    ['no endpoint', { name: 'x' }, 'invalid_endpoint'],
    ['an endpoint that is not a string', { endpoint: 42 }, 'invalid_endpoint'],
    ['a relative URL', { endpoint: '/pay' }, 'invalid_endpoint'],
    ['a bare word', { endpoint: 'example.com' }, 'invalid_endpoint'],
    ['ftp', { endpoint: 'ftp://example.com/pay' }, 'invalid_endpoint'],
    ['javascript:', { endpoint: 'javascript:alert(1)' }, 'invalid_endpoint'],
    ['file:', { endpoint: 'file:///etc/passwd' }, 'invalid_endpoint'],
    ['credentials', { endpoint: 'https://user:pass@example.com/pay' }, 'invalid_endpoint'],
    ['an endpoint over 2048 characters', { endpoint: `https://example.com/${'a'.repeat(2048)}` }, 'invalid_endpoint'],
    ['a name that is not a string', { endpoint: 'https://example.com/pay', name: ['x'] }, 'invalid_json'],
    ['a contact over 200 characters', { endpoint: 'https://example.com/pay', contact: 'c'.repeat(201) }, 'invalid_json'],
    ['a body that is not JSON', 'endpoint=https://example.com', 'invalid_json'],
    ['a body that is an array', ['https://example.com'], 'invalid_json'],
  ])('refuses %s with 400 %s and stores nothing', async (_, body, code) => {
    const { request, db } = createTestApp();
    const { status, json } = await request('/api/v1/submit', submit(body));
    expect(status).toBe(400);
    expect(ErrorResponse.parse(json).error.code).toBe(code);
    expect(db.prepare('SELECT count(*) AS n FROM submissions').get()).toEqual({ n: 0 });
  });

  const privateTargets = [
    'http://127.0.0.1/pay',
    'http://127.1/pay',
    'http://2130706433/pay',
    'http://0x7f000001/pay',
    'http://0177.0.0.1/pay',
    'http://[::1]/pay',
    'http://[::ffff:127.0.0.1]/pay',
    'http://[::ffff:7f00:1]/pay',
    'http://10.1.2.3/pay',
    'http://172.16.0.1/pay',
    'http://172.31.255.254/pay',
    'http://192.168.1.1/pay',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/pay',
    'http://100.64.0.1/pay',
    'http://[fd00:ec2::254]/pay',
    'http://[fe80::1]/pay',
    'http://localhost:8080/pay',
    'http://api.localhost/pay',
    'http://metadata.google.internal/computeMetadata/v1/',
  ];

  it.each(privateTargets)('refuses the private target %s with invalid_endpoint', async (endpoint) => {
    const { request } = createTestApp();
    const { status, json } = await request('/api/v1/submit', submit({ endpoint }));
    expect(status).toBe(400);
    expect(json.error.code).toBe('invalid_endpoint');
    expect(json.error.message).toMatch(/refused/);
  });

  it('refuses a name that resolves to a private address, and accepts one that does not resolve yet', async () => {
    const resolving = createTestApp([], { lookup: async (host) => (host === 'rebind.example' ? ['93.184.215.14', '127.0.0.1'] : []) });
    const refused = await resolving.request('/api/v1/submit', submit({ endpoint: 'https://rebind.example/pay' }));
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('invalid_endpoint');
    const queued = await resolving.request('/api/v1/submit', submit({ endpoint: 'https://not-yet.example/pay' }));
    expect(queued.json).toMatchObject({ ok: true, status: 'queued' });
  });

  it('accepts private addresses that ALLOW_PRIVATE_TARGETS lists, and only those', async () => {
    const { request } = createTestApp([], { config: { allowPrivateTargets: parseAllowList('127.0.0.1,10.0.0.0/8') } });
    expect((await request('/api/v1/submit', submit({ endpoint: 'http://127.0.0.1:9999/pay' }))).status).toBe(200);
    expect((await request('/api/v1/submit', submit({ endpoint: 'http://10.9.9.9/pay' }))).status).toBe(200);
    expect((await request('/api/v1/submit', submit({ endpoint: 'http://192.168.0.1/pay' }))).status).toBe(400);
  });
});
