/**
 * The site's Astro adapter: compiles the on-demand pages into `server/entry.mjs`, which exports
 * `render(request, locals)`. The site build (site/build/) calls it once per page and writes the HTML as
 * static files; nothing serves the bundle over the network.
 * @example integrations: [], adapter: renderAdapter()
 */
export default function renderAdapter() {
  return {
    name: 'psi-render',
    hooks: {
      'astro:config:done': ({ setAdapter }) => {
        setAdapter({
          name: 'psi-render',
          serverEntrypoint: new URL('./entry.mjs', import.meta.url).pathname,
          exports: ['render'],
          adapterFeatures: { buildOutput: 'server', edgeMiddleware: false },
          supportedAstroFeatures: {
            staticOutput: 'stable',
            hybridOutput: 'stable',
            serverOutput: 'stable',
            sharpImageService: 'unsupported',
          },
        });
      },
    },
  };
}
