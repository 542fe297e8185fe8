import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../project.ts';

/** A replica started as `npm start` starts one (server/main.ts), with the origin it listens on. */
export interface StartedReplica {
  child: ChildProcess;
  url: string;
}

/**
 * Starts server/main.ts with `env` over this process's environment, keeping every stdout line in `logs`; resolves
 * with its origin once it says where it listens, rejects if it exits first.
 * @example const { child, url } = await startReplica({ REPLICA_OF: target, PORT: '0' }, logs);
 */
export async function startReplica(env: Record<string, string>, logs: string[]): Promise<StartedReplica> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'server', 'main.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the replica exited ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logs.push(line);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(new URL(match[1]!).origin);
    });
  });
  return { child, url };
}

/** Stops a started replica with SIGTERM and waits for it to exit (nothing to do once it has). */
export async function stopReplica(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
