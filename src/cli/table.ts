/** Plain-text tables for terminal reports: columns padded to their widest cell (colour-aware). */

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes
const ANSI = /\u001b\[[0-9;]*m/g;

function width(cell: string): number {
  return [...cell.replace(ANSI, '')].length;
}

/** Rows of cells → lines; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => width(r[i] ?? ''))));
  const line = (r: readonly string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
