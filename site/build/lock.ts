import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a caller waits for another process's compile or build before giving up. */
export const LOCK_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 100;
/** Locks this process holds, let go of even when it exits in the middle (e.g. `process.exit` on SIGTERM). */
const held = new Set<string>();
process.on('exit', () => {
  for (const path of held) rmSync(path, { recursive: true, force: true });
});
const UNLABELLED_GRACE_MS = 10_000;

/**
 * Runs `work` while holding a lock shared by every process on this machine: a directory created atomically,
 * holding the owner's pid. A lock whose owner has died is taken over, so a killed build never blocks the next.
 * Re-entrant within one process is not supported: callers serialize their own work.
 * @example await withLock('/tmp/dist.lock', async () => build());
 */
export async function withLock<T>(path: string, work: () => Promise<T>, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  const started = Date.now();
  mkdirSync(dirname(path), { recursive: true });
  for (;;) {
    try {
      mkdirSync(path);
      held.add(path);
      writeFileSync(join(path, 'owner'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (isAbandoned(path)) {
        rmSync(path, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for the lock ${path}`);
      await sleep(POLL_MS);
    }
  }
  try {
    return await work();
  } finally {
    held.delete(path);
    rmSync(path, { recursive: true, force: true });
  }
}

function isAbandoned(path: string): boolean {
  let owner: number;
  try {
    owner = Number(readFileSync(join(path, 'owner'), 'utf8'));
  } catch {
    // Created but not yet labelled by its owner: give it a moment; after that its owner died in between.
    try {
      return Date.now() - statSync(path).mtimeMs > UNLABELLED_GRACE_MS;
    } catch {
      return false;
    }
  }
  if (!Number.isInteger(owner) || owner <= 0) return true;
  if (owner === process.pid) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
