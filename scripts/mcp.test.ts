import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../project.ts';

/**
 * `npm run --silent mcp` as an MCP client starts it: the approval links of `create_purchase` point at BASE_URL, the
 * server that serves the approval pages; without it the process says on stderr which origin it guessed.
 */
const dir = mkdtempSync(join(tmpdir(), 'psi-mcp-stdio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function createPurchase(extraEnv: Record<string, string>): Promise<{ approveUrl: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && !['BASE_URL', 'STAGING_URL', 'PORT', 'HOST'].includes(entry[0])));
  const transport = new StdioClientTransport({
    command: 'npm', args: ['run', '--silent', 'mcp'], cwd: PROJECT_ROOT, env: { ...env, DATABASE_PATH: join(dir, 'index.db'), ...extraEnv }, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'psi-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'create_purchase', arguments: { service_id: 'index-demo-web-search', params: { query_id: 'x402-facilitators' } } });
    return { approveUrl: (result.structuredContent as { approve_url: string }).approve_url, stderr };
  } finally {
    await client.close();
  }
}

describe('the stdio MCP server\'s approval links', { timeout: 60_000 }, () => {
  it('come from BASE_URL, and without it stderr says which origin they guess and how to set it', async () => {
    const configured = await createPurchase({ BASE_URL: 'http://127.0.0.1:8088' });
    expect(configured.approveUrl).toMatch(/^http:\/\/127\.0\.0\.1:8088\/purchase\/pur_/);
    expect(configured.stderr).not.toContain('BASE_URL');

    const guessed = await createPurchase({});
    expect(guessed.approveUrl).toMatch(/^http:\/\/127\.0\.0\.1:4321\/purchase\/pur_/);
    expect(guessed.stderr).toContain('BASE_URL is not set: purchase approval links point at http://127.0.0.1:4321.');
  });
});
