/**
 * The one way a request gets `Warning` headers (RFC 7234 5.5): field validation, deprecated
 * versions, admission plugins and webhooks all add through the request's recorder, so they share
 * kube-apiserver's limits. A recorder drops empty and repeated texts and texts that cannot be a
 * header (invalid UTF-16, control characters); it writes at most 4096 runes of text in full, and
 * once that budget would be exceeded it rewrites every warning cut to 256 runes and keeps adding
 * cut warnings until the budget is spent again, then drops the rest.
 */
import type { Context } from 'koa';
import { logger } from '../logger';

/** Runes of warning text written before the recorder starts cutting warnings. */
export const WARNING_TOTAL_RUNES = 4096;
/** Runes kept of each warning once cutting. */
export const WARNING_ITEM_RUNES = 256;

// Go's unicode.IsControl: C0, DEL and C1.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A surrogate without its pair is text Go could not hold as valid UTF-8.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The header value `<code> <agent> "<text>"` (`"` and `\` escaped with a backslash), or undefined
 * when the text cannot be carried (invalid Unicode or a control character) or the agent is not
 * a token. Non-ASCII text goes out as its UTF-8 bytes: Node writes header strings as Latin-1, so
 * each byte is spelled as one Latin-1 character here.
 */
export function warningHeaderValue(text: string, agent = '-', code = 299): string | undefined {
  if (agent === '') agent = '-';
  else if (/[\s"\\]/.test(agent) || CONTROL.test(agent) || LONE_SURROGATE.test(agent)) return undefined;
  if (CONTROL.test(text) || LONE_SURROGATE.test(text)) return undefined;
  const quoted = `${String(code).padStart(3, '0')} ${agent} "${text.replace(/["\\]/g, '\\$&')}"`;
  // eslint-disable-next-line no-control-regex
  return /^[\u0000-\u007f]*$/.test(quoted) ? quoted : Buffer.from(quoted, 'utf8').toString('latin1');
}

/** Number of Unicode code points (Go's runes) in `s`. */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one rune.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

/** The first `max` runes of `s` (never splitting a surrogate pair). */
export function truncateRunes(s: string, max: number): string {
  if (s.length <= max) return s;
  let out = '';
  let runes = 0;
  for (const r of s) {
    if (runes++ === max) break;
    out += r;
  }
  return out;
}

/** Where a recorder's headers go: replaced as a whole on each change. */
export interface WarningSink {
  setWarnings(values: string[]): void;
}

/** One request's warnings, with kube-apiserver's dedupe and size limits. */
export class WarningRecorder {
  private readonly recorded = new Set<string>();
  private readonly ordered: Array<{ agent: string; text: string }> = [];
  private headers: string[] = [];
  private written = 0;
  private truncating = false;

  constructor(private readonly sink: WarningSink) {}

  /** The header values written so far. */
  get values(): readonly string[] {
    return this.headers;
  }

  /** Adds one warning (agent `-` unless given). */
  add(text: string, agent = '-'): void {
    if (!text) return;
    if (this.truncating && this.written >= WARNING_TOTAL_RUNES) return;
    if (this.recorded.has(text)) return;
    this.recorded.add(text);
    this.ordered.push({ agent, text });
    let runes = runeCount(text);
    if (this.truncating && runes > WARNING_ITEM_RUNES) {
      text = truncateRunes(text, WARNING_ITEM_RUNES);
      runes = WARNING_ITEM_RUNES;
    }
    const header = warningHeaderValue(text, agent);
    if (header === undefined) return;
    if (this.truncating || this.written + runes <= WARNING_TOTAL_RUNES) {
      this.written += runes;
      this.headers.push(header);
      this.sink.setWarnings(this.headers);
      return;
    }
    // Over budget: from now on every warning is cut, the earlier ones too.
    this.truncating = true;
    this.written = 0;
    this.headers = [];
    logger.warn('exceeded max warning header size, truncating');
    for (const w of this.ordered) {
      const cut = truncateRunes(w.text, WARNING_ITEM_RUNES);
      const value = warningHeaderValue(cut, w.agent);
      if (value === undefined) continue;
      this.written += Math.min(runeCount(w.text), WARNING_ITEM_RUNES);
      this.headers.push(value);
    }
    this.sink.setWarnings(this.headers);
  }
}

/** The request's recorder, made on first use; its headers go on the response (also an error's). */
export function warningRecorder(ctx: Context): WarningRecorder {
  const state = ctx.state as { warnings?: WarningRecorder };
  return state.warnings ??= new WarningRecorder({
    setWarnings: (values) => {
      // Once a stream has begun, headers can no longer change (as in Go, they are ignored).
      if (ctx.headerSent) return;
      if (values.length) ctx.set('Warning', values as string[]);
      else ctx.remove('Warning');
    },
  });
}

/** Adds warnings to the request's response through its recorder. */
export function addWarning(ctx: Context, ...texts: string[]): void {
  const recorder = warningRecorder(ctx);
  for (const t of texts) recorder.add(t);
}
