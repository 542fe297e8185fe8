import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../api/app.ts';
import { hashSecret, newClaimSecret, newOwnerKey } from '../api/owner-key.ts';
import { testConfig } from '../api/testing.ts';
import { recordChange } from '../data/changes.ts';
import { createClaim, verifyClaim } from '../data/claims.ts';
import { delistService } from '../data/owners.ts';
import { makeService } from '../data/testing.ts';
import { refreshSite } from './build/refresh.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, type FixtureSite } from './testing.ts';

/*
 * Feeds stay well-formed whatever the database holds: rows written before text was cleaned where it enters carry
 * every character XML 1.0 forbids, and each Atom feed the real server answers still parses with a strict XML parser.
 * An owner's delist reason sent through the API comes out clean in the change log and the feed.
 */

/** NUL, C0 controls, DEL-range C1 controls, noncharacters, a lone surrogate and a bidi override. */
const FORBIDDEN = '\u0000\u0001\u001b\u000b\u000c\uFFFE\uFFFF\uD800\u0085\u009b\u202E';
const dirty = (text: string) => text.split(' ').join(` ${FORBIDDEN}`);

const db = openFixtureDatabase([
  makeService({ id: 'dirty-example-com', name: dirty('Dirty Name'), description: dirty('Dirty description here') }),
  makeService({ id: 'gone-example-com', name: 'Gone' }),
  makeService({ id: 'owned-example-com', name: 'Owned' }),
  makeService({ id: 'edited-example-com', name: 'Edited' }),
]);
let site: FixtureSite;
let origin: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const at = new Date(FIXTURE_NOW.getTime() - 60_000).toISOString();
  delistService(db, 'gone-example-com', { reason: dirty('Retired by request'), by: 'operator', now: at });
  recordChange(db, { at, service_id: 'dirty-example-com', type: 'terms_changed', summary: dirty('Terms changed quietly') });
  site = await buildFixtureSite(db);
  const app = createApp({ db, config: testConfig(), now: () => FIXTURE_NOW, lookup: async () => [], site: { distDir: site.distDir } });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = async () => {
    await server.close(true);
    site.remove();
  };
}, 180_000);
afterAll(() => close?.());

async function get(path: string): Promise<string> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(200);
  return response.text();
}

/** The document's text, as a strict, namespace-aware XML parser reads it; throws on the first well-formedness error. */
function readXml(xml: string): string {
  const parser = new SaxesParser({ xmlns: true });
  const texts: string[] = [];
  parser.on('text', (text) => texts.push(text));
  parser.on('cdata', (text) => texts.push(text));
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
  return visible(texts.join('\n'));
}

/** Text without U+FFFD, which XML allows: SQLite keeps a lone surrogate written before the cleaning as replacement characters. */
const visible = (text: string) => text.replaceAll('\uFFFD', '');

/** An owner key for a service, as a verified claim gives one. */
function becomeOwner(serviceId: string): string {
  const key = newOwnerKey();
  const claim = createClaim(db, { service_id: serviceId, secret_digest: hashSecret(newClaimSecret()), client: '127.0.0.1', now: FIXTURE_NOW });
  verifyClaim(db, claim, hashSecret(key), FIXTURE_NOW.toISOString());
  return key;
}

const asOwner = (key: string, method: string, body: unknown): RequestInit =>
  ({ method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const HIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202E\uFFFE\uFFFF]|\p{Cs}/u;

describe('feeds of a database holding forbidden characters', { timeout: 60_000 }, () => {
  it('every Atom feed parses with a strict XML parser and keeps the visible text', async () => {
    const all = readXml(await get('/feed.xml'));
    expect(all).toContain('Retired by request');
    expect(all).toContain('Terms changed quietly');
    expect(all).toContain('Dirty Name');
    const own = readXml(await get('/services/dirty-example-com/feed.xml'));
    expect(own).toContain('Dirty Name: changes');
    expect(own).toContain('Terms changed quietly');
    expect(all + own).not.toMatch(HIDDEN);
  });

  it('every JSON feed parses and holds clean text', async () => {
    for (const path of ['/feed.json', '/services/dirty-example-com/feed.json']) {
      const feed = JSON.parse(await get(path));
      const texts: string[] = [feed.title, feed.description, ...feed.items.map((item: { content_text: string }) => item.content_text)];
      expect(texts.join('\n'), path).not.toMatch(HIDDEN);
      expect(texts.map(visible), path).toContain('Terms changed quietly');
    }
  });

  it("an owner's delist reason goes in through the API and comes out clean in the change log and the feed", async () => {
    const key = becomeOwner('owned-example-com');
    const response = await fetch(`${origin}/api/v1/services/owned-example-com/delist`,
      asOwner(key, 'POST', { reason: `\r\n${dirty('Moved to a new host')}\u2066\u2069` }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'delisted', reason: 'Moved to a new host' });
    const log = await (await fetch(`${origin}/api/v1/changes?service=owned-example-com`)).json();
    expect(log.changes.at(-1)).toMatchObject({ type: 'delisted', summary: 'Its owner delisted it: Moved to a new host.' });
    await refreshSite(db, site.options);
    expect(readXml(await get('/feed.xml'))).toContain('Its owner delisted it: Moved to a new host.');
  });

  it("an owner's edits are cleaned, and one of controls only is refused", async () => {
    const key = becomeOwner('edited-example-com');
    const path = `${origin}/api/v1/services/edited-example-com`;
    const edited = await fetch(path, asOwner(key, 'PATCH', { name: dirty('Edited Name'), description: dirty('Line one\r\nline two'), category: dirty('data') }));
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ name: 'Edited Name', description: 'Line one\nline two', category: 'data' });
    const refused = await fetch(path, asOwner(key, 'PATCH', { name: '\u202E\u0000\u2066' }));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('name') });
    await refreshSite(db, site.options);
    expect(readXml(await get('/services/edited-example-com/feed.xml'))).toContain('Edited Name: changes');
  });
});
