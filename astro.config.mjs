import { defineConfig } from 'astro/config';
import renderAdapter from './site/adapter/index.mjs';
import recordInputs from './site/adapter/record-inputs.mjs';

/**
 * Astro compiles the site's components and client assets; site/build/ renders every page from the database
 * through the compiled bundle (see site/README.md). `outDir` is set per compile by site/build/compile.ts.
 */
export default defineConfig({
  srcDir: './site/src',
  publicDir: './site/public',
  outDir: './dist.compile',
  output: 'static',
  adapter: renderAdapter(),
  trailingSlash: 'ignore',
  build: { format: 'directory', inlineStylesheets: 'never' },
  devToolbar: { enabled: false },
  prefetch: false,
  // No script is ever inlined: every page's policy allows scripts from this origin only (api/static.ts).
  vite: { build: { assetsInlineLimit: 0 }, plugins: [recordInputs()] },
});
