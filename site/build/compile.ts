import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../project.ts';
import { withLock } from './lock.ts';

/**
 * Compiling the site's code (not its data): `astro build` turns the components into a server bundle whose
 * `render(request, locals)` site/build/render.ts calls once per page, and the client assets (CSS, the search
 * script, static pages such as /purchase) every release copies. The result depends only on the code, so it is
 * cached under node_modules/.cache/psi-site/<key> and reused by every build, rebuild and incremental render
 * until a source file changes.
 */

/**
 * Where compiles are kept; `PSI_SITE_CACHE` moves it (the benchmark measures a cold compile that way). It must
 * stay inside the project, where the bundle finds its packages in node_modules.
 */
const CACHE_DIR = process.env.PSI_SITE_CACHE ? join(PROJECT_ROOT, process.env.PSI_SITE_CACHE) : join(PROJECT_ROOT, 'node_modules', '.cache', 'psi-site');
const ASTRO_BIN = join(PROJECT_ROOT, 'node_modules', 'astro', 'astro.js');
/** Compiles kept besides the current one (older code, e.g. the release being served while another builds). */
const KEEP_COMPILES = 3;
/** What decides the key besides site/: Astro's config and the installed versions. */
const KEY_FILES = ['astro.config.mjs', 'package-lock.json'];
/** Under site/, what Astro does not compile. */
const NOT_COMPILED = [/^site\/build\//, /^site\/testing\.ts$/, /^site\/README\.md$/, /\.test\.ts$/, /(^|\/)\./];

export interface CompiledSite {
  key: string;
  dir: string;
  /** Assets and static pages to copy into every release (`_astro/`, `favicon.svg`, ...). */
  clientDir: string;
  /** The server bundle exporting `render`. */
  serverEntry: string;
  /** Present when this call compiled: how long it took and the compiler's peak memory (Linux; else null). */
  compiled?: { seconds: number; peakRssBytes: number | null };
}

/**
 * The compiled site for the current sources, compiling it first when no current compile is cached.
 * Safe to call from several processes at once: one compiles, the others wait and reuse it.
 * @example const compiled = await ensureCompiled(); await import(pathToFileURL(compiled.serverEntry).href);
 */
export async function ensureCompiled(options: { log?: (line: string) => void } = {}): Promise<CompiledSite> {
  const key = getSourceKey();
  const cached = getCompiled(key);
  if (cached) return cached;
  mkdirSync(CACHE_DIR, { recursive: true });
  return withLock(join(CACHE_DIR, 'compile.lock'), async () => {
    const again = getCompiled(key);
    if (again) return again;
    const started = performance.now();
    const work = join(CACHE_DIR, `tmp-${process.pid}-${Date.now()}`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    try {
      const peakRssBytes = await runAstroBuild(join(work, 'out'), join(work, 'inputs.json'));
      const inputs = JSON.parse(readFileSync(join(work, 'inputs.json'), 'utf8')) as string[];
      // Files compiled in from outside site/ (site/ is in the key already) are checked on every reuse.
      const outside = inputs.filter((path) => !path.startsWith('site/'));
      writeFileSync(join(work, 'outside.json'), JSON.stringify(Object.fromEntries(outside.map((path) => [path, hashFile(path)]))));
      const dir = join(CACHE_DIR, key);
      rmSync(dir, { recursive: true, force: true });
      renameSync(work, dir);
      pruneCompiles(key);
      const seconds = (performance.now() - started) / 1000;
      options.log?.(`compiled the site in ${seconds.toFixed(1)} s`);
      return { ...toCompiled(key), compiled: { seconds, peakRssBytes } };
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

/** The compile cached under a key, when it exists and nothing it compiled in from outside site/ has changed. */
export function getCompiled(key: string): CompiledSite | null {
  const compiled = toCompiled(key);
  if (!existsSync(compiled.serverEntry)) return null;
  try {
    const outside = JSON.parse(readFileSync(join(compiled.dir, 'outside.json'), 'utf8')) as Record<string, string>;
    for (const [path, hash] of Object.entries(outside)) if (hashFile(path) !== hash) return null;
  } catch {
    return null;
  }
  return compiled;
}

/**
 * The key of the current sources: a hash over every file under site/ that Astro compiles, Astro's config and
 * the lockfile.
 */
export function getSourceKey(): string {
  const hash = createHash('sha256');
  const files = [...KEY_FILES, ...listFiles('site').filter((path) => !NOT_COMPILED.some((pattern) => pattern.test(path)))].sort();
  for (const path of files) {
    hash.update(path).update('\0');
    hash.update(existsSync(join(PROJECT_ROOT, path)) ? readFileSync(join(PROJECT_ROOT, path)) : '').update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function toCompiled(key: string): CompiledSite {
  const dir = join(CACHE_DIR, key);
  return { key, dir, clientDir: join(dir, 'out', 'client'), serverEntry: join(dir, 'out', 'server', 'entry.mjs') };
}

/** Runs `astro build` in a child process; answers its peak resident memory, watched through /proc (Linux). */
function runAstroBuild(outDir: string, inputsFile: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ASTRO_BIN, 'build', '--outDir', outDir, '--silent'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PSI_INPUTS_FILE: inputsFile, ASTRO_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let peakRssBytes: number | null = null;
    const watch = setInterval(() => {
      const peak = readPeakRss(child.pid);
      if (peak !== null) peakRssBytes = Math.max(peakRssBytes ?? 0, peak);
    }, 100);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      if (code === 0) resolve(peakRssBytes);
      else reject(new Error(`astro build failed (${signal ?? `exit ${code}`}):\n${output.trim().slice(-4000)}`));
    });
  });
}

/** The high-water mark of a process's resident memory (`VmHWM`), or null where /proc does not tell. */
function readPeakRss(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function pruneCompiles(current: string): void {
  const entries = readdirSync(CACHE_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^[0-9a-f]{16}$/.test(entry.name) && entry.name !== current)
    .map((entry) => ({ name: entry.name, mtimeMs: statSync(join(CACHE_DIR, entry.name)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const entry of entries.slice(KEEP_COMPILES - 1)) rmSync(join(CACHE_DIR, entry.name), { recursive: true, force: true });
}

function listFiles(dir: string): string[] {
  const full = join(PROJECT_ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(PROJECT_ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

function hashFile(path: string): string {
  const full = join(PROJECT_ROOT, path);
  return existsSync(full) ? createHash('sha256').update(readFileSync(full)).digest('hex') : 'missing';
}
