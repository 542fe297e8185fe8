import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../../project.ts';
import type { PageLocals } from '../src/lib/site.ts';
import type { CompiledSite } from './compile.ts';

/** Renders one page of the compiled site to HTML. */
export interface PageRenderer {
  key: string;
  /**
   * The HTML of the page at `path`, rendered with `locals` as its data; throws when the page answers another
   * status than `status` (a page that throws renders a 500, and the build fails with its message).
   */
  render(path: string, locals: PageLocals, status?: number): Promise<string>;
}

/** Requests never leave the process; this origin only gives them a URL. */
const RENDER_ORIGIN = 'http://render.invalid';
/** Plain JavaScript, started from its source file whether this module runs from source or compiled. */
const WORKER_PATH = join(PROJECT_ROOT, 'site', 'build', 'render-worker.mjs');
/**
 * Render threads: the main thread shapes the data and writes the files, the threads run Astro. One thread keeps
 * pace with the main thread on two cores; more cores get a second.
 */
export const RENDER_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));

const loaded = new Map<string, Promise<PageRenderer>>();

/**
 * The renderer of a compiled site: its render threads, started once per process and compile. Idle threads do
 * not keep the process alive.
 * @example const renderer = await loadRenderer(await ensureCompiled()); await renderer.render('/404', { site }, 404);
 */
export function loadRenderer(compiled: CompiledSite): Promise<PageRenderer> {
  let renderer = loaded.get(compiled.key);
  if (!renderer) {
    renderer = startRenderer(compiled);
    loaded.set(compiled.key, renderer);
    renderer.catch(() => loaded.delete(compiled.key));
  }
  return renderer;
}

interface Pending {
  resolve: (reply: { status: number; html: string }) => void;
  reject: (error: Error) => void;
}

interface RenderThread {
  worker: Worker;
  pending: Map<number, Pending>;
}

async function startRenderer(compiled: CompiledSite): Promise<PageRenderer> {
  const threads = await Promise.all(Array.from({ length: RENDER_THREADS }, () => startThread(compiled)));
  let nextId = 0;
  return {
    key: compiled.key,
    async render(path, locals, status = 200) {
      const thread = threads.reduce((least, candidate) => (candidate.pending.size < least.pending.size ? candidate : least));
      const id = nextId++;
      const reply = await new Promise<{ status: number; html: string }>((resolve, reject) => {
        if (thread.pending.size === 0) thread.worker.ref();
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, url: `${RENDER_ORIGIN}${path}`, locals });
      });
      if (reply.status !== status) {
        const text = reply.html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 300);
        throw new Error(`rendering ${path} answered ${reply.status}, expected ${status}: ${text}`);
      }
      return reply.html;
    },
  };
}

function startThread(compiled: CompiledSite): Promise<RenderThread> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_PATH, {
      workerData: { entryUrl: pathToFileURL(compiled.serverEntry).href },
      execArgv: [],
    });
    const thread: RenderThread = { worker, pending: new Map() };
    const fail = (error: Error) => {
      for (const pending of thread.pending.values()) pending.reject(error);
      thread.pending.clear();
      loaded.delete(compiled.key);
      reject(error);
    };
    worker.on('message', (message: { ready?: true; id?: number; status?: number; html?: string; error?: string }) => {
      if (message.ready) {
        worker.unref();
        resolve(thread);
        return;
      }
      const pending = thread.pending.get(message.id!);
      if (!pending) return;
      thread.pending.delete(message.id!);
      if (thread.pending.size === 0) worker.unref();
      if (message.error !== undefined) pending.reject(new Error(`render thread: ${message.error}`));
      else pending.resolve({ status: message.status!, html: message.html! });
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`render thread exited with code ${code}`)));
  });
}
