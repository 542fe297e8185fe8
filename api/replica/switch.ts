import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from 'srvx/node';
import type { App } from '../app.ts';
import type { NodeHandler } from '../detail-lane.ts';

/**
 * One app serving at a time, replaced without dropping a request: each request runs to its end on the app it
 * started on, and a replaced app is closed (its database with it) once its last request has finished.
 */
export interface SwitchingApp {
  /** An App for serveApp (api/app.ts) that hands each request to the current app. */
  app: App;
  /** Makes `next` serve every request from now on; `close` runs when the replaced app has no request left. */
  replace(next: App, close: () => void): void;
  /** How many requests the replaced apps still hold. */
  readonly draining: number;
}

interface Generation {
  app: App;
  handler: NodeHandler;
  inFlight: number;
  close: (() => void) | null;
}

/**
 * @example const switching = createSwitchingApp(first, closeFirst); serveApp(switching.app, options); switching.replace(next, closeNext);
 */
export function createSwitchingApp(first: App, closeFirst: () => void, front?: (request: IncomingMessage, response: ServerResponse) => boolean): SwitchingApp {
  const toGeneration = (app: App): Generation => ({ app, handler: app.toNodeHandler(toNodeHandler(app.fetch) as NodeHandler), inFlight: 0, close: null });
  let current = toGeneration(first);
  let currentClose = closeFirst;
  const retired = new Set<Generation>();
  const finish = (generation: Generation) => {
    generation.inFlight -= 1;
    if (generation.close && generation.inFlight === 0) {
      retired.delete(generation);
      generation.close();
    }
  };
  const dispatch: NodeHandler = (request, response) => {
    if (front?.(request, response)) return;
    const generation = current;
    generation.inFlight += 1;
    response.once('close', () => finish(generation));
    return generation.handler(request, response);
  };
  return {
    app: {
      fetch: (request) => current.app.fetch(request),
      request: (input, init) => current.app.request(input, init),
      toNodeHandler: () => dispatch,
      answerUnreadable: (...args) => current.app.answerUnreadable(...args),
    },
    replace(next, close) {
      const previous = current;
      previous.close = currentClose;
      current = toGeneration(next);
      currentClose = close;
      if (previous.inFlight === 0) previous.close();
      else retired.add(previous);
    },
    get draining() {
      return [...retired].reduce((sum, generation) => sum + generation.inFlight, 0);
    },
  };
}
