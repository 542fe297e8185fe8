import { escapeInvisible } from '../../domain/text.ts';

/**
 * Rows as a plain text table: a header, then one line per row, columns padded to their widest cell (cells cut at
 * `maxWidth` characters, invisible characters written as `\uXXXX`, so a submitted name can neither redraw the
 * terminal nor reorder what is around it).
 * @example toTable([{ id: 'sub_1', status: 'queued' }], ['id', 'status']) // 'id     status\nsub_1  queued'
 */
export function toTable<T extends object>(rows: readonly T[], columns: ReadonlyArray<keyof T & string>, maxWidth = 48): string {
  if (rows.length === 0) return '(none)';
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '-' : escapeInvisible(String(value));
    return text.length > maxWidth ? `${text.slice(0, maxWidth - 1)}…` : text;
  };
  const cells = [columns.map((column) => column), ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  return cells.map((line) => line.map((text, index) => text.padEnd(widths[index]!)).join('  ').trimEnd()).join('\n');
}

/** Lines of text for the terminal, each line's invisible characters written as `\uXXXX`. */
export function toTerminalText(text: string): string {
  return text.split('\n').map(escapeInvisible).join('\n');
}

/** A value as indented JSON whose strings show invisible characters as `\uXXXX` escapes: it parses to the same value. */
export function toJsonText(value: unknown): string {
  return toTerminalText(JSON.stringify(value, null, 2));
}
