/**
 * Rows as a plain text table: a header, then one line per row, columns padded to their widest cell (cells cut at
 * `maxWidth` characters, control characters shown as spaces, so a submitted name cannot redraw the terminal).
 * @example toTable([{ id: 'sub_1', status: 'queued' }], ['id', 'status']) // 'id     status\nsub_1  queued'
 */
export function toTable<T extends object>(rows: readonly T[], columns: ReadonlyArray<keyof T & string>, maxWidth = 48): string {
  if (rows.length === 0) return '(none)';
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '-' : String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
    return text.length > maxWidth ? `${text.slice(0, maxWidth - 1)}…` : text;
  };
  const cells = [columns.map((column) => column), ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  return cells.map((line) => line.map((text, index) => text.padEnd(widths[index]!)).join('  ').trimEnd()).join('\n');
}
