import { existsSync, writeFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';

/**
 * A Vite plugin that records which project files (outside node_modules) went into the compiled site, so
 * site/build/compile.ts can tell whether a cached compile is still current. Writes the sorted list of
 * paths, relative to the project root, to `$PSI_INPUTS_FILE` after every bundle; does nothing when unset.
 */
export default function recordInputs() {
  const root = resolve('.');
  const inputs = new Set();
  return {
    name: 'psi-record-inputs',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        for (const id of chunk.moduleIds) {
          const path = id.split('?')[0];
          if (!path.startsWith(root + sep) || path.includes(`${sep}node_modules${sep}`)) continue;
          if (existsSync(path)) inputs.add(relative(root, path));
        }
      }
    },
    writeBundle() {
      const file = process.env.PSI_INPUTS_FILE;
      if (file) writeFileSync(file, JSON.stringify([...inputs].sort(), null, 1));
    },
  };
}
