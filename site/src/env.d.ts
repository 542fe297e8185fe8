/// <reference types="astro/client" />

/**
 * What the site build (site/build/) hands each page in `Astro.locals`: the page's data, already shaped by
 * site/src/lib/. Pages only render it, and throw when it is missing.
 */
declare namespace App {
  type PageLocals = import('./lib/site.ts').PageLocals;
  interface Locals extends PageLocals {}
}
