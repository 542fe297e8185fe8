import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepSettingsOwn, SERVER_PROCESS } from '../processes.ts';
import { PROJECT_ROOT } from '../project.ts';

/** `node-args` as package.json's start script runs it (under tsx here), with `env` as the caller's environment. */
function nodeArgs(args: string[], env: Record<string, string> = {}): string {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in SERVER_PROCESS.env)));
  return execFileSync(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'node-args.ts'), ...args], {
    env: { ...inherited, ...env }, encoding: 'utf8',
  }).trim();
}

describe('node-args', () => {
  it("prints the server's node flags, and its environment as NAME=value words for env", () => {
    expect(nodeArgs(['server'])).toBe(SERVER_PROCESS.nodeArgs.join(' '));
    expect(nodeArgs(['server', '--env'])).toBe('MALLOC_ARENA_MAX=2');
  });

  it("leaves out of the environment what the caller's sets: the caller's overrides it", () => {
    expect(nodeArgs(['server', '--env'], { MALLOC_ARENA_MAX: '8' })).toBe('');
  });
});

describe('keepSettingsOwn', () => {
  it("takes the process's own settings out of the environment its children inherit, and nothing else", () => {
    const env: NodeJS.ProcessEnv = { MALLOC_ARENA_MAX: '2', PORT: '8080' };
    keepSettingsOwn(SERVER_PROCESS, env);
    expect(env).toEqual({ PORT: '8080' });
  });
});
