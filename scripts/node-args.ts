/**
 * `node .build/scripts/node-args.mjs server`: the node flags of one of the index's processes (processes.ts), for
 * package.json's start script, which cannot import them.
 */
import { PROCESSES } from '../processes.ts';

const settings = PROCESSES[process.argv[2] ?? ''];
if (!settings) {
  console.error(`usage: node-args <${Object.keys(PROCESSES).join('|')}>`);
  process.exit(2);
}
console.log(settings.nodeArgs.join(' '));
