import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../../domain/schemas.ts';
import { toCallCurl, toCallView } from './calls.ts';

const endpoint = (overrides: Partial<Endpoint>): Endpoint => ({
  id: 'a-example.get.x-00000000', service_id: 'a-example', method: 'GET', url: 'https://a.example/x', route_template: null,
  description: null, docs_url: null, price: { usd: null, display: null }, offers: [], input: null, output: null, tags: [],
  sources: ['bazaar'], live: null, last_check: null, ...overrides,
});
const input = (overrides: Partial<NonNullable<Endpoint['input']>>): NonNullable<Endpoint['input']> => ({
  type: 'http', method: 'GET', query: null, path: null, headers: null, body_type: null, body: null, tool: null, example: null, ...overrides,
});

describe('how to call an endpoint', () => {
  it('fills a percent-encoded {param} and the query from the schema when no example is listed', () => {
    const call = endpoint({
      url: 'https://a.example/report/%7Bid%7D', route_template: '/report/:id',
      input: input({
        path: { type: 'object', properties: { id: { type: 'string', examples: ['r1'] } }, required: ['id'] },
        query: { type: 'object', properties: { format: { enum: ['pdf', 'html'] } } },
      }),
    });
    expect(toCallCurl(call)).toBe("curl -i 'https://a.example/report/r1?format=pdf'");
    expect(toCallView(call)).toMatchObject({
      title: 'GET /report/:id',
      params: [
        { name: 'id', where: 'path', type: 'string', required: true, description: null },
        { name: 'format', where: 'query', type: 'any ("pdf", "html")', required: false, description: null },
      ],
    });
  });

  it('sends a form or a text body as the input says, and quotes what the shell would read', () => {
    const form = endpoint({ method: 'POST', input: input({ method: 'POST', body_type: 'form-data', body: { type: 'object', properties: { file: { type: 'string' } } } }) });
    expect(toCallCurl(form)).toBe("curl -i https://a.example/x -X POST \\\n  -F file=string");
    const text = endpoint({ method: 'POST', input: input({ method: 'POST', body_type: 'text', example: { body: "it's $(rm -rf /)" } }) });
    expect(toCallCurl(text)).toBe("curl -i https://a.example/x -X POST \\\n  -H 'content-type: text/plain' \\\n  -d 'it'\\''s $(rm -rf /)'");
  });

  it('cuts a long output example and says so', () => {
    const view = toCallView(endpoint({ output: { mime_type: 'application/json', schema: null, example: 'x'.repeat(5_000) } }));
    expect(view.outputExample).toMatch(/^x{4000}\n… \(cut: the example is longer\)$/);
  });
});
