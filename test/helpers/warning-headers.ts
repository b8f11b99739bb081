/**
 * Reads `Warning` response headers as a client does: Node hands header bytes over as Latin-1
 * (so the UTF-8 text is recovered first) and joins repeated headers with ", ", so one value may
 * hold several `<code> <agent> "<text>"` warnings, as Go's ParseWarningHeaders reads them.
 */

/** One parsed warning. */
export interface ParsedWarning { code: number; agent: string; text: string }

/** Parses every warning in one header value; throws on anything malformed. */
export function parseWarnings(raw: string): ParsedWarning[] {
  const value = Buffer.from(raw, 'latin1').toString('utf8');
  const out: ParsedWarning[] = [];
  let i = 0;
  while (i < value.length) {
    const m = /^(\d{3}) ([^\s"]+) "/u.exec(value.slice(i));
    if (!m) throw new Error(`not a warning header at ${i}: ${value}`);
    i += m[0].length;
    let text = '';
    for (;;) {
      if (i >= value.length) throw new Error(`unterminated warning text: ${value}`);
      const c = value[i++];
      if (c === '"') break;
      text += c === '\\' ? value[i++] : c;
    }
    out.push({ code: Number(m[1]), agent: m[2], text });
    if (i < value.length) {
      if (!value.startsWith(', ', i)) throw new Error(`unexpected text after a warning: ${value}`);
      i += 2;
    }
  }
  return out;
}

/** The texts of a response's `Warning` headers (none: []). */
export function warningTexts(headers: Record<string, string | string[] | undefined>): string[] {
  const h = headers.warning;
  if (h === undefined) return [];
  return (Array.isArray(h) ? h : [h]).flatMap((v) => parseWarnings(v).map((w) => w.text));
}
