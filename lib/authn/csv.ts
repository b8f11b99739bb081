/**
 * CSV records as Go's encoding/csv reads them (what kube-apiserver uses for --token-auth-file):
 * fields split on commas, a field that starts with `"` is quoted (`""` is a quote inside it, and it
 * may span lines), `\r\n` ends a line like `\n`, empty lines are skipped, a record may have any
 * number of fields. Errors say where: `parse error on line L, column C: ...`, never the text.
 */

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(readonly line: number, readonly column: number, why: string) {
    super(`parse error on line ${line}, column ${column}: ${why}`);
    this.name = 'CsvError';
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const src = text.replace(/\r\n/g, '\n');
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  while (i < src.length) {
    if (src[i] === '\n') { i++; line++; continue; } // an empty line
    const start = line;
    const fields: string[] = [];
    let lineStart = i;
    for (;;) {
      if (src[i] === '"') {
        // A quoted field: up to the closing quote, which must end the field.
        let value = '';
        i++;
        for (;;) {
          if (i >= src.length) throw new CsvError(start, i - lineStart + 1, 'extraneous or missing " in quoted-field');
          const c = src[i];
          if (c === '"') {
            if (src[i + 1] === '"') { value += '"'; i += 2; continue; }
            i++;
            break;
          }
          if (c === '\n') { line++; lineStart = i + 1; }
          value += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n') throw new CsvError(line, i - lineStart + 1, 'extraneous or missing " in quoted-field');
        fields.push(value);
      } else {
        let end = i;
        while (end < src.length && src[end] !== ',' && src[end] !== '\n') end++;
        const value = src.slice(i, end);
        const quote = value.indexOf('"');
        if (quote >= 0) throw new CsvError(line, i - lineStart + quote + 1, 'bare " in non-quoted-field');
        fields.push(value);
        i = end;
      }
      if (src[i] === ',') { i++; continue; }
      break;
    }
    records.push({ line: start, fields });
    if (src[i] === '\n') { i++; line++; }
  }
  return records;
}
