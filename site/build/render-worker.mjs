/**
 * A render thread: imports the compiled site's server bundle and renders the pages the build asks for.
 * Plain JavaScript on purpose: it runs without the TypeScript loader (site/build/render.ts starts it with no
 * execArgv), whose hooks would otherwise sit in front of every dynamic import Astro makes per page.
 */
import { parentPort, workerData } from 'node:worker_threads';

const { render } = await import(workerData.entryUrl);
if (typeof render !== 'function') throw new Error(`${workerData.entryUrl} exports no render(); is the psi-render adapter configured?`);

parentPort.on('message', async ({ id, url, locals }) => {
  try {
    const response = await render(new Request(url), locals);
    parentPort.postMessage({ id, status: response.status, html: await response.text() });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
});
parentPort.postMessage({ ready: true });
