import { describe, expect, it } from 'vitest';
import { readBazaarV1, readBazaarV2, readRouteInput } from './call-input.ts';
import { MAX_SCHEMA_BYTES, toValidSchema } from './json-schema.ts';

describe('schemas from outside', () => {
  it('keeps a valid 2020-12 schema, reads an earlier draft as 2020-12, and drops the rest whole without throwing', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    expect(toValidSchema(schema)).toEqual(schema);
    // Real Bazaar items state draft-07: read as 2020-12, never a throw.
    expect(toValidSchema({ $schema: 'http://json-schema.org/draft-07/schema#', ...schema })).toEqual(schema);
    expect(toValidSchema({ $schema: 'https://example.com/my-draft', ...schema })).toBeNull();
    expect(toValidSchema({ type: 'nonsense' })).toBeNull();
    expect(toValidSchema({ $ref: 'https://evil.example/schema.json' })).toBeNull();
    expect(toValidSchema({ properties: { a: { $id: 'https://elsewhere.example/' } } })).toBeNull();
    expect(toValidSchema({ $defs: { a: { type: 'string' } }, properties: { a: { $ref: '#/$defs/a' } } })).not.toBeNull();
    const big = { type: 'object', description: 'x'.repeat(MAX_SCHEMA_BYTES) };
    expect(toValidSchema(big), 'over 32 KiB: dropped, not truncated').toBeNull();
  });
});

describe('inputs read from each directory shape', () => {
  it('reads Bazaar v1 field maps in either spelling, body fields with their type', () => {
    const { input, output } = readBazaarV1({
      input: { type: 'http', method: 'post', body_type: 'form-data', query_params: { page: { type: 'integer', default: 1 } },
        body_fields: { file: { type: 'string', description: 'The file', required: true } }, header_fields: { 'x-key': { type: 'string' } } },
      output: { text: { type: 'string' } },
    }, null);
    expect(input).toEqual({
      type: 'http', method: 'POST', tool: null, example: null, path: null, body_type: 'form-data',
      query: { type: 'object', properties: { page: { type: 'integer', default: 1 } } },
      headers: { type: 'object', properties: { 'x-key': { type: 'string' } } },
      body: { type: 'object', properties: { file: { type: 'string', description: 'The file' } }, required: ['file'] },
    });
    expect(output).toEqual({ mime_type: null, schema: { type: 'object', properties: { text: { type: 'string' } } }, example: undefined });
    expect(readBazaarV1({ input: { type: 'http', method: 'GET' } }, null).input, 'a method alone is no known input').toBeNull();
  });

  it('reads a Bazaar v2 MCP tool and refuses a route template the spec forbids', () => {
    const read = readBazaarV2({
      routeTemplate: '/a/../b',
      info: { input: { type: 'mcp', toolName: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, example: { q: 'x' } } },
    }, 'application/json');
    expect(read.routeTemplate).toBeNull();
    expect(read.input).toMatchObject({ type: 'mcp', tool: 'search', body_type: 'json', body: { properties: { q: { type: 'string' } } }, example: { body: { q: 'x' } } });
  });

  it('reads a route with params as a path schema, and a plain route as no input', () => {
    expect(readRouteInput('GET', '/v1/items/:id/{part}')).toMatchObject({
      path: { type: 'object', properties: { id: { type: 'string' }, part: { type: 'string' } }, required: ['id', 'part'] },
    });
    expect(readRouteInput('GET', '/v1/items')).toBeNull();
  });
});
