import { existsSync, readFileSync } from 'node:fs';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { validatePaymentRequired } from '@x402/core/schemas';
import { describe, expect, it } from 'vitest';
import { SPEC_SERVICES, toCombinations, type SpecService } from '../purchase/testing/spec-table.ts';
import { ErrorResponse } from '../../domain/schemas.ts';
import { createTestApp } from '../testing.ts';
import type { DemoContext } from './service.ts';
import { findDemoService } from './registry.ts';

const PAY_TO = '0x00000000000000000000000000000000000Fee01';
const query = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
const firstValues = (spec: SpecService) => Object.fromEntries(spec.params.filter((p) => p.required).map((p) => [p.name, p.values[0]!]));

describe('demo services: parameters and the x402 v2 challenge', () => {
  const { request } = createTestApp([], { config: { payToAddress: PAY_TO }, now: () => new Date() });

  it.each(SPEC_SERVICES)('$id answers an unpaid call with 402 and a v2 exact challenge for its price', async (spec) => {
    const url = `${spec.path}?${query(firstValues(spec))}`;
    const { status, headers, json } = await request(url);
    expect(status).toBe(402);
    expect(headers.get('cache-control')).toBe('no-store');
    const challenge = validatePaymentRequired(decodePaymentRequiredHeader(headers.get('payment-required') ?? ''));
    expect(challenge).toMatchObject({ x402Version: 2, error: 'Payment required', resource: { url: `http://localhost${url}` } });
    expect(challenge.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: spec.atomic,
        asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: 'USDC', version: '2' },
      },
    ]);
    expect(json).toEqual(challenge);
  });

  it('answers each URL its own challenge: asked again, beside other URLs, and after more URLs than are kept', async () => {
    const spec = SPEC_SERVICES.find((candidate) => candidate.params[0]!.values.length > 1)!;
    const { name, values } = spec.params[0]!;
    const ownUrls = values.map((value) => `http://localhost${spec.path}?${query({ ...firstValues(spec), [name]: value })}`);
    const otherHosts = Array.from({ length: 300 }, (_, i) => `http://host-${i}.example${spec.path}?${query(firstValues(spec))}`);
    const resourceOf = async (url: string) => {
      const { headers } = await request(url);
      const challenge = validatePaymentRequired(decodePaymentRequiredHeader(headers.get('payment-required') ?? ''));
      return challenge.x402Version === 2 ? challenge.resource.url : `a version ${challenge.x402Version} challenge`;
    };
    for (const url of [...ownUrls, ...ownUrls, ...otherHosts, ...ownUrls]) expect(await resourceOf(url)).toBe(url);
  });

  it.each(SPEC_SERVICES)('$id refuses missing, unknown, repeated and out-of-enum parameters with 400 naming them, before any challenge', async (spec) => {
    const valid = firstValues(spec);
    const cases: [Record<string, string | number> | string, string][] = [
      [{ ...valid, colour: 'blue' }, 'colour'],
      [`${query(valid)}&${spec.params[0]!.name}=${spec.params[0]!.values[0]}`, spec.params[0]!.name],
      ...spec.params.filter((p) => p.required).map((p): [Record<string, string | number>, string] => {
        const { [p.name]: _, ...rest } = valid;
        return [rest, p.name];
      }),
      ...spec.params.map((p): [Record<string, string | number>, string] => [{ ...valid, [p.name]: 'not-a-value' }, p.name]),
    ];
    for (const [params, name] of cases) {
      const { status, headers, json } = await request(`${spec.path}?${typeof params === 'string' ? params : query(params)}`);
      expect(status, `${spec.id} ${JSON.stringify(params)}`).toBe(400);
      expect(headers.get('payment-required')).toBeNull();
      const { error } = ErrorResponse.parse(json);
      expect(error.code).toBe('missing_query');
      expect(error.message).toContain(`"${name}"`);
    }
  });

  it('applies the defaults and accepts every listed value', async () => {
    for (const spec of SPEC_SERVICES) {
      for (const combo of toCombinations(spec)) {
        expect((await request(`${spec.path}?${query(combo)}`)).status).toBe(402);
      }
      for (const param of spec.params.filter((p) => !p.required)) {
        expect((await request(`${spec.path}?${query(firstValues(spec))}&${param.name}=`)).status, `${spec.id} ${param.name}=`).toBe(402);
      }
    }
  });
});

describe('demo services: answers', () => {
  const context: DemoContext = {
    now: () => new Date('2026-11-01T12:00:00Z'),
    priceSource: { getQuote: async () => ({ price_usd: 1, change_24h_pct: 0, as_of: '2026-11-01T12:00:00.000Z', source: 'test' }) },
  };
  const answer = async (id: string, params: Record<string, string | number>) => {
    const service = findDemoService(id)!;
    const values = service.query.parse(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, String(value)])));
    return JSON.parse(JSON.stringify(await service.respond(values, context))) as Record<string, any>;
  };

  it.each(SPEC_SERVICES)('$id carries every field of the spec table and differs for every parameter value', async (spec) => {
    const bodies = new Set<string>();
    for (const combo of toCombinations(spec)) {
      const body = await answer(spec.id, combo);
      const expected = spec.id === 'index-demo-audio-transcription'
        ? spec.fields.filter((field) => field !== (combo.format === 'text' ? 'segments' : 'transcript'))
        : spec.fields;
      expect(Object.keys(body).sort()).toEqual([...expected].sort());
      for (const field of expected) expect(body[field], `${spec.id} ${field}`).not.toBeUndefined();
      bodies.add(JSON.stringify(body));
    }
    if (spec.id !== 'index-demo-market-data') expect(bodies.size).toBe(toCombinations(spec).length);
  });

  it('product-search returns only products at or under max_eur, with the best value among them', async () => {
    for (const max_eur of [50, 150, 400]) {
      const body = await answer('index-demo-product-search', { query_id: 'standing-desk', max_eur });
      expect(body.filters).toEqual({ max_eur, currency: 'EUR' });
      expect(body.products.length).toBeGreaterThan(0);
      expect(body.products.every((product: { price_eur: number }) => product.price_eur <= max_eur)).toBe(true);
      expect(body.products.map((product: { name: string }) => product.name)).toContain(body.best_value.name);
    }
    expect((await answer('index-demo-product-search', { query_id: 'usb-c-hub', max_eur: 50 })).products).toHaveLength(2);
    expect((await answer('index-demo-product-search', { query_id: 'usb-c-hub', max_eur: 400 })).products).toHaveLength(4);
  });

  it('specialist-research: brief has three findings, standard five plus open questions', async () => {
    const brief = await answer('index-demo-specialist-research', { topic_id: 'testnet-facilitators', depth: 'brief' });
    const standard = await answer('index-demo-specialist-research', { topic_id: 'testnet-facilitators' });
    expect(brief).toMatchObject({ depth: 'brief', open_questions: [] });
    expect(brief.findings).toHaveLength(3);
    expect(standard.depth).toBe('standard');
    expect(standard.findings).toHaveLength(5);
    expect(standard.open_questions.length).toBeGreaterThan(0);
    expect(['low', 'medium', 'high']).toContain(standard.confidence);
  });

  it('audio-transcription text has one speaker-labelled line per segment', async () => {
    const segments = await answer('index-demo-audio-transcription', { clip_id: 'standup-2026-09-14' });
    const text = await answer('index-demo-audio-transcription', { clip_id: 'standup-2026-09-14', format: 'text' });
    const lines = text.transcript.split('\n');
    expect(lines).toHaveLength(segments.segments.length);
    segments.segments.forEach((segment: { speaker: string; text: string }, i: number) => expect(lines[i]).toBe(`${segment.speaker}: ${segment.text}`));
    expect(segments.clip.speakers).toEqual(['Maya', 'Jonas', 'Priya']);
  });

  it('image-creation points at a real SVG of the site for every brief and style, of the stated size', async () => {
    for (const brief_id of ['launch-poster', 'product-icon', 'social-card']) {
      for (const style of ['flat', 'outline']) {
        const body = await answer('index-demo-image-creation', { brief_id, style });
        expect(body).toMatchObject({ format: 'svg', variant: style, asset_url: `/demo/${brief_id}-${style}.svg` });
        const file = new URL(`../../site/public${body.asset_url}`, import.meta.url);
        expect(existsSync(file)).toBe(true);
        const svg = readFileSync(file, 'utf8');
        expect(svg).toContain(`width="${body.width}" height="${body.height}"`);
        expect(svg).toContain(body.alt_text);
        for (const colour of body.palette) expect(svg.toLowerCase()).toContain(colour);
      }
    }
  });

  it('website-performance checks follow the metrics and thresholds', async () => {
    for (const page_id of ['sample-landing', 'sample-checkout', 'sample-docs']) {
      for (const device of ['mobile', 'desktop']) {
        const { metrics, thresholds, checks, score } = await answer('index-demo-website-performance', { page_id, device });
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(100);
        for (const key of ['lcp_ms', 'cls', 'inp_ms'] as const) expect(checks[key]).toBe(metrics[key] <= thresholds[key] ? 'pass' : 'fail');
        expect(checks.overall).toBe([checks.lcp_ms, checks.cls, checks.inp_ms].every((c) => c === 'pass') ? 'pass' : 'fail');
      }
    }
  });
});
