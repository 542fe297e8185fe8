/**
 * The peak RSS and CPU time of every process a bench step starts, read from /proc (Linux): the targets are per
 * process, and a child's own figures die with it, so its descendants are sampled while the step runs. VmHWM is the
 * kernel's high-water mark of the process's RSS, so a sample taken late still holds the peak; CPU time is the last
 * sample's (up to one interval short).
 */
import { readdirSync, readFileSync } from 'node:fs';

const SAMPLE_MS = 200;
/** /proc counts CPU time in clock ticks: USER_HZ, 100 a second on every Linux the bench runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

/** One process a step started, as last sampled. */
export interface ProcessFigures {
  pid: number;
  /** The program and its script, e.g. `node scripts/publish.ts` or `litestream restore`. */
  command: string;
  peakRssBytes: number;
  cpuSeconds: number;
}

/** Runs `step`, sampling every process below this one that it starts, and answers them with the step's result. */
export async function measureProcesses<T>(step: () => Promise<T>): Promise<{ result: T; processes: ProcessFigures[] }> {
  const before = new Set(descendants(process.pid));
  const seen = new Map<number, ProcessFigures>();
  const sample = () => {
    for (const pid of descendants(process.pid)) {
      if (before.has(pid)) continue;
      // An exited process not yet reaped (a zombie) has no memory or command line left: its last sample stands.
      const figures = readProcess(pid);
      if (figures && figures.peakRssBytes >= (seen.get(pid)?.peakRssBytes ?? 0)) seen.set(pid, figures);
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  try {
    const result = await step();
    return { result, processes: [...seen.values()] };
  } finally {
    clearInterval(timer);
  }
}

/** Every process whose chain of parents reaches `root`. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readQuietly(`/proc/${name}/stat`);
    if (stat) parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const below = (pid: number): number[] => [...parents].filter(([, parent]) => parent === pid).flatMap(([child]) => [child, ...below(child)]);
  return below(root);
}

function readProcess(pid: number): ProcessFigures | null {
  const status = readQuietly(`/proc/${pid}/status`);
  const stat = readQuietly(`/proc/${pid}/stat`);
  const cmdline = readQuietly(`/proc/${pid}/cmdline`);
  if (!status || !stat || cmdline === null) return null;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!hwm || cmdline === '') return null;
  // utime and stime are the 12th and 13th fields after the command's closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    command: describe(cmdline.split('\0').filter(Boolean)),
    peakRssBytes: Number(hwm[1]) * 1024,
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
  };
}

/** The program's base name and the first argument that names a script or a subcommand. */
function describe(argv: string[]): string {
  const program = (argv[0] ?? '?').split('/').at(-1)!;
  const subject = argv.slice(1).find((arg) => !arg.startsWith('-') && !/^(tsx|file:)/.test(arg) && !arg.includes('/node_modules/'));
  return subject ? `${program} ${subject.split('/').at(-1)}` : program;
}

function readQuietly(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
