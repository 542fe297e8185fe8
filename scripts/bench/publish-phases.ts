/**
 * The publish's memory by phase, over a real release, against a store in memory (uploads counted, not kept):
 * `publish-phases.ts <release> <manifest file> [changed share]`. The manifest file stands for the store's manifest:
 * read at the start when it exists (with `changed share` of its entries given another digest, so that share is
 * uploaded again, as a pass would), and written at every manifest write. Prints one JSON line: RSS and heap at each
 * phase, the peak RSS, the uploads.
 */
import { closeSync, createReadStream, existsSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { readManifestLines, toManifestPieces, type ManifestEntry } from '../../site/publish/manifest.ts';
import { publishSite } from '../../site/publish/publish.ts';
import type { Store } from '../../site/publish/store.ts';

const [root, manifestFile, share] = process.argv.slice(2);
const MB = 1024 * 1024;
const phases: Array<{ phase: string; rssMB: number; heapMB: number; externalMB: number }> = [];
const mark = (phase: string) => {
  const usage = process.memoryUsage();
  phases.push({ phase, rssMB: Math.round(usage.rss / MB), heapMB: Math.round(usage.heapUsed / MB), externalMB: Math.round((usage.external + usage.arrayBuffers) / MB) });
};
const peakRss = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

let writes = 0;
const store: Store = {
  target: { bucket: 'bench', prefix: '' } as Store['target'],
  assertWritable: async () => undefined,
  async readManifest() {
    if (!existsSync(manifestFile!)) return { entries: [], legacy: false };
    const every = share ? Math.round(1 / Number(share)) : 0;
    const entries = async function* () {
      let k = 0;
      for await (const entry of readManifestLines(createReadStream(manifestFile!))) {
        yield every > 0 && k++ % every === 0 ? { ...entry, digest: '0'.repeat(64) } : entry;
      }
      mark('manifest read');
    };
    return { entries: entries(), legacy: false };
  },
  async writeManifest(entries: () => Iterable<ManifestEntry>) {
    const file = openSync(`${manifestFile!}.tmp`, 'w');
    for (const piece of toManifestPieces(entries())) writeSync(file, piece);
    closeSync(file);
    renameSync(`${manifestFile!}.tmp`, manifestFile!);
    if (writes++ % 5 === 0) mark(`manifest write ${writes}`);
  },
  put: async () => undefined,
  remove: async () => undefined,
};
mark('start');
const summary = await publishSite({ store, root: root!, onStart: () => mark('planned') });
mark('end');
console.log(JSON.stringify({ peakRssMB: Math.round(peakRss()), uploaded: summary.uploaded, unchanged: summary.unchanged, seconds: Math.round(summary.seconds), phases }));
