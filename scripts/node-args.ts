/**
 * `node .build/scripts/node-args.mjs server`: the node flags of one of the index's processes (processes.ts), for
 * package.json's start script, which cannot import them; with `--env`, its environment as `NAME=value` words for
 * `env`, leaving out what the caller's environment sets (the caller's overrides it).
 */
import { PROCESSES } from '../processes.ts';

const settings = PROCESSES[process.argv[2] ?? ''];
if (!settings) {
  console.error(`usage: node-args <${Object.keys(PROCESSES).join('|')}> [--env]`);
  process.exit(2);
}
console.log(process.argv[3] === '--env'
  ? Object.entries(settings.env).filter(([name]) => process.env[name] === undefined).map(([name, value]) => `${name}=${value}`).join(' ')
  : settings.nodeArgs.join(' '));
