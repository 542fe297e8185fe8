/**
 * `npm run rebuild`: for schedulers. One crawl (scripts/crawl.ts, with any arguments given here), then a full
 * build into a new release, switched in atomically: readers see the old site until the new one is complete,
 * and a killed rebuild leaves the old one served. `--no-crawl` only builds. `--publish` then publishes the new
 * release (scripts/publish.ts) to `--to s3://BUCKET/PREFIX` or PUBLISH_TO.
 * The build runs even when the crawl reports a failure (e.g. every directory unreachable): the probes it did
 * record are in the database, and the site follows the database. The exit code is the crawl's when it failed,
 * else the build's, else the publish's; nothing is published from a build that failed.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PUBLISH_PROCESS, type ProcessSettings } from '../processes.ts';
import { compile, PUBLISH_ENTRIES } from './compile.ts';

const args = process.argv.slice(2);
const crawl = !args.includes('--no-crawl');
const publish = args.includes('--publish');
const toAt = args.indexOf('--to');
const publishArgs = toAt === -1 ? [] : args.slice(toAt, toAt + 2);
const crawlArgs = args.filter((arg, index) => arg !== '--no-crawl' && arg !== '--publish' && (toAt === -1 || (index !== toAt && index !== toAt + 1)));

/** Runs a script (its node arguments: `underTsx`, or a compiled file) in a child; answers its exit code. */
const run = (script: string[], scriptArgs: string[], settings: Pick<ProcessSettings, 'nodeArgs' | 'env'> = { nodeArgs: [], env: {} }) =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [...settings.nodeArgs, ...script, ...scriptArgs], {
      stdio: 'inherit',
      env: { ...settings.env, ...process.env },
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });

const underTsx = (script: string) => ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))];
// The publish runs compiled, as `npm run publish` does: without tsx's loader, it and its copy child hold less.
const compiledPublish = async () => [(await compile(PUBLISH_ENTRIES))[0]!];

if (publish && publishArgs.length < 2 && !process.env.PUBLISH_TO) {
  console.error('rebuild: --publish needs --to s3://BUCKET/PREFIX (or PUBLISH_TO)');
  process.exit(2);
}
const crawlCode = crawl ? await run(underTsx('./crawl.ts'), crawlArgs) : 0;
if (crawlCode !== 0) console.error(`rebuild: the crawl exited ${crawlCode}; building the site from the database as it is`);
const buildCode = await run(underTsx('./build.ts'), []);
const publishCode = publish && buildCode === 0 ? await run(await compiledPublish(), publishArgs, PUBLISH_PROCESS) : 0;
process.exit(crawlCode !== 0 ? crawlCode : buildCode !== 0 ? buildCode : publishCode);
