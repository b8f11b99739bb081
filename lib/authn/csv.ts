/**
 * CSV records as Go's encoding/csv reads them with FieldsPerRecord = -1 (what kube-apiserver uses
 * for --token-auth-file): fields split on commas; a field that starts with `"` is quoted (`""` is a
 * quote inside it, and it may span lines); `\r\n` ends a line like `\n`, and one `\r` ending the
 * input is dropped; empty lines are skipped; a record may have any number of fields. Errors read
 * as Go's (`parse error on line L, column C: ...`, byte columns), never with the text.
 */

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

export const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
export const ERR_QUOTE = 'extraneous or missing " in quoted-field';

export class CsvError extends Error {
  constructor(readonly startLine: number, readonly line: number, readonly column: number, why: string) {
    super(startLine === line
      ? `parse error on line ${line}, column ${column}: ${why}`
      : `record on line ${startLine}; parse error on line ${line}, column ${column}: ${why}`);
    this.name = 'CsvError';
  }
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The input's lines, each with its `\n` (the last may have none), as Go's reader sees them. */
function linesOf(text: string): string[] {
  const src = (text.endsWith('\r') ? text.slice(0, -1) : text).replace(/\r\n/g, '\n');
  const lines: string[] = [];
  for (let i = 0; i < src.length;) {
    const nl = src.indexOf('\n', i);
    const end = nl < 0 ? src.length : nl + 1;
    lines.push(src.slice(i, end));
    i = end;
  }
  return lines;
}

export function parseCsv(text: string): CsvRecord[] {
  const lines = linesOf(text);
  const records: CsvRecord[] = [];
  let next = 0;
  while (next < lines.length) {
    let line = lines[next++];
    if (line === '\n') continue; // an empty line
    const startLine = next;
    let lineNo = next;
    let col = 1;
    const fields: string[] = [];
    record: for (;;) {
      if (line[0] !== '"') {
        const comma = line.indexOf(',');
        const field = comma >= 0 ? line.slice(0, comma) : line.endsWith('\n') ? line.slice(0, -1) : line;
        const quote = field.indexOf('"');
        if (quote >= 0) throw new CsvError(startLine, lineNo, col + bytes(field.slice(0, quote)), ERR_BARE_QUOTE);
        fields.push(field);
        if (comma < 0) break;
        col += bytes(field) + 1;
        line = line.slice(comma + 1);
        continue;
      }
      // A quoted field: up to a closing quote followed by a comma or the end of the line.
      let value = '';
      line = line.slice(1);
      col += 1;
      for (;;) {
        const quote = line.indexOf('"');
        if (quote >= 0) {
          value += line.slice(0, quote);
          col += bytes(line.slice(0, quote)) + 1;
          line = line.slice(quote + 1);
          if (line[0] === '"') {
            value += '"';
            line = line.slice(1);
            col += 1;
          } else if (line[0] === ',') {
            fields.push(value);
            line = line.slice(1);
            col += 1;
            continue record;
          } else if (line === '' || line === '\n') {
            fields.push(value);
            break record;
          } else {
            // Go points at the closing quote.
            throw new CsvError(startLine, lineNo, col - 1, ERR_QUOTE);
          }
        } else if (line.length) {
          value += line;
          col += bytes(line);
          if (next >= lines.length) {
            line = '';
          } else {
            line = lines[next++];
            lineNo = next;
            col = 1;
          }
        } else {
          throw new CsvError(startLine, lineNo, col, ERR_QUOTE);
        }
      }
    }
    records.push({ line: startLine, fields });
  }
  return records;
}
