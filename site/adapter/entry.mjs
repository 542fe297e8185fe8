import { App } from 'astro/app';

/**
 * The server entry Astro bundles with the compiled pages: `render(request, locals)` renders one page
 * (the page reads its already-shaped data from `Astro.locals`).
 */
export function createExports(manifest) {
  const app = new App(manifest, false);
  return {
    render: (request, locals) => app.render(request, { locals, addCookieHeader: false }),
  };
}
