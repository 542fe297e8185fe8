import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { deprioritize } from '../processes.ts';
import { compiledPath, PROJECT_ROOT, RUNS_COMPILED } from '../project.ts';

const DELIVER_SCRIPT = 'scripts/deliver.ts';
/** A worker that exits on its own is started again after this long. */
const RESTART_AFTER_MS = 5_000;

export interface DeliveryScheduleOptions {
  /** The worker's environment: DATABASE_PATH, ALLOW_PRIVATE_TARGETS. */
  env: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** The deliveries running beside the server, with a way to nudge them and to stop them. */
export interface DeliverySchedule {
  /** Tells the worker there are new changes (after a crawl pass), so it need not wait for its next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Runs the webhook delivery worker (scripts/deliver.ts) as a child of `npm start`, at a lower priority, restarted if it
 * exits, so sending never takes the API's time. Its stdin is a pipe from this process: when this process dies, even by kill -9, the
 * pipe closes and the worker stops; the queue in SQLite carries every undelivered delivery to the next start.
 * @example const deliveries = startDeliverySchedule({ env: { ...process.env, DATABASE_PATH: config.databasePath } });
 */
export function startDeliverySchedule(options: DeliveryScheduleOptions): DeliverySchedule {
  let child: ChildProcess | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const args = RUNS_COMPILED ? [compiledPath(DELIVER_SCRIPT)] : ['--import', 'tsx', join(PROJECT_ROOT, DELIVER_SCRIPT)];

  const start = () => {
    timer = null;
    const running = spawn(process.execPath, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    child = running;
    deprioritize(running);
    running.stdout?.on('data', (chunk: Buffer) => options.log?.(chunk.toString().trimEnd()));
    running.stderr?.on('data', (chunk: Buffer) => options.log?.(chunk.toString().trimEnd()));
    running.stdin?.on('error', () => {});
    running.on('exit', (code) => {
      child = null;
      if (stopped) return;
      options.log?.(`delivery worker exited (${code}); starting it again in ${RESTART_AFTER_MS / 1000} s`);
      timer = setTimeout(start, RESTART_AFTER_MS);
    });
  };
  start();

  return {
    wake: () => child?.stdin?.write('\n'),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const running = child;
      if (!running) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
  };
}
