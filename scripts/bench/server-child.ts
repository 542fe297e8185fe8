/**
 * The parent's side of a benchmark server: forks it (so the load generator has its own event loop and core) as
 * `npm start` runs the server, compiled and on plain node with the same flags, waits for its URL, and asks it over
 * IPC for its timings and memory.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { SERVER_PROCESS } from '../../processes.ts';
import { compiledChild } from './compiled.ts';
import type { ChildCommand, ChildMessage, ServerReport } from './instrument.ts';

export interface ServerChild {
  url: string;
  pid: number;
  /** Forgets the timings so far (call after a warm-up). */
  reset(): Promise<void>;
  report(): Promise<ServerReport>;
  stop(): Promise<void>;
}

const REPLY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * @example const app = await startServer('serve-app.ts', [databasePath]); await app.stop();
 */
export async function startServer(script: string, args: string[]): Promise<ServerChild> {
  const child = fork(await compiledChild(`scripts/bench/${script}`), args, {
    execArgv: [...SERVER_PROCESS.nodeArgs],
    env: { ...SERVER_PROCESS.env, ...process.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await nextMessage(child, 'ready', REPLY_TIMEOUT_MS).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const ask = async <T extends ChildCommand>(command: T) => {
    const reply = nextMessage(child, command, REPLY_TIMEOUT_MS);
    child.send(command);
    return reply;
  };
  return {
    url: url.replace(/\/$/, ''),
    pid: child.pid!,
    reset: async () => void (await ask('reset')),
    report: async () => (await ask('report')).report,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}

function nextMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`${script(child)} did not answer "${type}" within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type === type) finish(null, message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null) => finish(new Error(`${script(child)} exited (code ${code}) before "${type}"`));
    function finish(error: Error | null, message?: Extract<ChildMessage, { type: T }>) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

const script = (child: ChildProcess) => child.spawnargs.find((arg) => arg.endsWith('.mjs')) ?? 'server child';
