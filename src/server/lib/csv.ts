/**
 * One CSV cell: quoted, quotes doubled, and a text starting with = + - @ (or tab / carriage return)
 * prefixed with an apostrophe so a spreadsheet shows it instead of running it as a formula.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" || typeof value === "object") {
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  }
  return `"${text.replace(/"/g, '""')}"`;
}

/** A CSV document: the header row as given, then one line of cells per row, CRLF line ends. */
export function toCsvDocument(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const lines = [header.join(","), ...rows.map((cells) => cells.map(csvCell).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}
