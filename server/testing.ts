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

/**
 * Waits until `done` holds, checking every 50 ms; after 30 s fails, naming what never happened with the replica's
 * `logs`.
 * @example await waitFor('swapped in the new copy', async () => (await fetch(url)).status === 200, logs);
 */
export async function waitFor(what: string, done: () => boolean | Promise<boolean>, logs: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`the replica never ${what}; it logged:\n${logs.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What readers saw while something happened: every answer that was not a 200, and how many were. */
export interface Reads {
  failures: string[];
  answered: number;
}

/**
 * Reads `paths` from `url` in turn on `lanes` concurrent loops, from 300 ms before `during` starts until 300 ms after
 * it ends, so that a swap under test happens under load. Each lane reads as its own client address.
 * @example const { failures } = await readsDuring(url, ['/api/v1/stats'], 6, () => publish());
 */
export async function readsDuring(url: string, paths: string[], lanes: number, during: () => Promise<unknown>): Promise<Reads> {
  const reads: Reads = { failures: [], answered: 0 };
  let running = true;
  const lane = async (at: number) => {
    for (let k = at; running; k++) {
      const path = paths[k % paths.length]!;
      try {
        const answer = await fetch(`${url}${path}`, { headers: { 'x-forwarded-for': `10.0.${at}.${k % 250}` } });
        await answer.arrayBuffer();
        if (answer.status === 200) reads.answered += 1;
        else reads.failures.push(`${path}: ${answer.status}`);
      } catch (error) {
        reads.failures.push(`${path}: ${(error as Error).message}`);
      }
    }
  };
  const load = Promise.all(Array.from({ length: lanes }, (_, at) => lane(at)));
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    await during();
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    running = false;
    await load;
  }
  return reads;
}
