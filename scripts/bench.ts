/**
 * `npm run bench [-- <group> ...]`: runs the named benchmark groups (all when none is named) and prints one line
 * per figure with its target and PASS/FAIL. Exits 0 when a target is missed (the line says FAIL), non-zero only
 * when a benchmark could not run. To add a group: write it in scripts/bench/ and list it in GROUPS.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { apiGroup } from './bench/api.ts';
import { buildGroup } from './bench/build.ts';
import { crawlGroup } from './bench/crawl.ts';
import { cycleGroup } from './bench/cycle.ts';
import { publishGroup } from './bench/publish.ts';
import { purchaseGroup } from './bench/purchase.ts';
import { searchGroup } from './bench/search.ts';
import { formatFigure, passes, type BenchGroup, type Figure } from './bench/report.ts';
import { webhooksGroup } from './bench/webhooks.ts';

const GROUPS: BenchGroup[] = [apiGroup, crawlGroup, purchaseGroup, buildGroup, webhooksGroup, publishGroup, cycleGroup, searchGroup];

const names = process.argv.slice(2);
const unknown = names.filter((name) => !GROUPS.some((group) => group.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark group(s): ${unknown.join(', ')}; the groups are: ${GROUPS.map((g) => g.name).join(', ')}`);
  process.exit(2);
}
const selected = names.length === 0 ? GROUPS : GROUPS.filter((group) => names.includes(group.name));

const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');
console.log(`node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ` +
  `${new Date().toISOString()}, load average ${load()}`);
const started = performance.now();
const figures: Figure[] = [];
try {
  for (const group of selected) {
    await group.run((figure) => {
      figures.push(figure);
      console.log(formatFigure(group.name, figure));
    });
  }
} catch (error) {
  console.error(`bench could not run: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
}
const targets = figures.flatMap((figure) => (figure.target ? [figure.target] : []));
console.log(`${targets.filter(passes).length} of ${targets.length} targets met, ` +
  `${((performance.now() - started) / 1000).toFixed(0)} s in all, load average ${load()}`);
