/**
 * What a benchmark group is and how its figures print: one line per figure, with the target and PASS/FAIL
 * when the figure has one.
 * @example api  detail rps               12345  (0.71x bare)  target >= 0.60x  PASS
 */

export interface Target {
  /** The number the target is about (the figure itself, or e.g. its ratio to a baseline). */
  actual: number;
  op: '>=' | '<=';
  limit: number;
  unit: string;
}

export interface Figure {
  label: string;
  /** The figure as shown, e.g. `12345  (0.71x bare)` or `4.2 ms`. */
  value: string;
  target?: Target;
}

export interface BenchGroup {
  /** The name given on the command line: `npm run bench -- api`. */
  name: string;
  /** Runs the group, handing each figure to `emit` as soon as it is measured. */
  run(emit: (figure: Figure) => void): Promise<void>;
}

export const passes = ({ actual, op, limit }: Target): boolean => (op === '>=' ? actual >= limit : actual <= limit);

export function formatFigure(group: string, figure: Figure): string {
  const line = `${group.padEnd(9)}${figure.label.padEnd(34)}${figure.value}`;
  if (!figure.target) return line;
  const { op, limit, unit } = figure.target;
  return `${line}${' '.repeat(Math.max(2, 66 - line.length))}target ${op} ${limit}${unit}  ${passes(figure.target) ? 'PASS' : 'FAIL'}`;
}

/** Rounds for display: integers from 100 up, otherwise two significant decimals. */
export const round = (value: number): string => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(2));
