/**
 * `npm run crawl`: runs scripts/crawl.ts in a child with the crawl's node flags and environment (processes.ts), the
 * same as a crawl `npm start` schedules; answers with its exit code.
 */
import { spawn } from 'node:child_process';
import { crawlNodeArgs } from '../crawler/schedule.ts';
import { CRAWL_PROCESS } from '../processes.ts';

const child = spawn(process.execPath, [...crawlNodeArgs(), ...process.argv.slice(2)], {
  env: { ...CRAWL_PROCESS.env, ...process.env },
  stdio: 'inherit',
});
// A Ctrl-C reaches the child too (one process group): this process waits for it to stop rather than leave it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 1));
