/**
 * Nesting limits for request bodies, checked before anything recursive sees the body.
 *
 * Kubernetes refuses JSON nested deeper than 10,000 levels (`exceeded max depth of 10000`). On
 * Node's default stack this server cannot go that far: `JSON.parse` is iterative, but the walks
 * that follow it are not (patching, managed fields, schema validation and pruning, deep copies,
 * `JSON.stringify` for storage and watch, protobuf encoding), and the first of them to overflow
 * turns the request into a RangeError. `yaml`'s Composer is recursive too, and worse: a YAML
 * document deep enough to exhaust the stack there can abort the whole process (V8's regexp
 * compiler running out of stack is fatal). So:
 *
 * - JSON bodies (objects, every patch type, DeleteOptions, JSON embedded in protobuf) may nest
 *   at most MAX_JSON_DEPTH levels, counted by one pass over the text before `JSON.parse`;
 * - YAML bodies (apply, `application/yaml`) at most MAX_YAML_DEPTH levels, counted on the CST
 *   from `yaml`'s Parser (iterative) before its Composer runs, and again on the composed value
 *   (aliases can build depth that the text does not show);
 * - values decoded from protobuf are walked (iteratively) against MAX_JSON_DEPTH.
 *
 * Beyond a limit the answer is 400 BadRequest with `exceeded max depth of N`, Kubernetes' words.
 * The numbers come from measuring the whole request path (test/fuzz/depth-probe.ts); see docs/reliability-and-security.md, "Hostile input".
 */
import type { Composer, LineCounter, CST, Document, YAMLParseError } from 'yaml';
import { yaml } from '../lazy-packages';
import { errors } from '../meta/api-errors';

/** Levels of `{`/`[` a JSON body may nest (Kubernetes: 10,000; see the module comment). */
export const MAX_JSON_DEPTH = 1000;
/** Levels of collections a YAML body may nest (lower: yaml's Composer recurses deeper per level). */
export const MAX_YAML_DEPTH = 500;

/** The message of a refused body, Kubernetes' `exceeded max depth of %d`. */
export function depthMessage(max: number): string {
  return `exceeded max depth of ${max}`;
}

/**
 * Whether JSON text nests deeper than `max`: counts `{`/`[` against `}`/`]` outside strings.
 * It does not validate (JSON.parse does that next); on malformed text it may answer either way,
 * and a malformed body is refused anyway.
 */
export function jsonDepthExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  // Fewer characters than levels allowed: nothing to count.
  if (text.length <= max) return false;
  // Nor when there are no more brackets than levels allowed (strings' included): a few native
  // searches instead of a walk over every character, for the bodies nearly every client sends.
  if (!moreThan(text, '{', '[', max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds more than `max` occurrences of `a` and `b` together. */
function moreThan(text: string, a: string, b: string, max: number): boolean {
  let n = 0;
  for (const c of [a, b]) {
    for (let at = text.indexOf(c); at >= 0; at = text.indexOf(c, at + 1)) if (++n > max) return true;
  }
  return false;
}

/** Whether a decoded value (plain objects and arrays) nests deeper than `max`; an explicit stack. */
export function valueDepthExceeds(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  // Shared subtrees (YAML aliases) are walked once per depth they are reached at.
  const seen = new Map<object, number>();
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) return true;
    const o = v as object;
    const at = seen.get(o);
    if (at !== undefined && at >= d) continue;
    seen.set(o, d);
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}

/** Whether a CST token nests deeper than `max` (collections count one level each). */
function cstDepthExceeds(tokens: readonly CST.Token[], max: number): boolean {
  const stack: Array<[CST.Token, number]> = tokens.map((t) => [t, 0]);
  while (stack.length) {
    const [t, d] = stack.pop()!;
    switch (t.type) {
      case 'document':
        if (t.value) stack.push([t.value, d]);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (d + 1 > max) return true;
        for (const it of t.items as Array<{ key?: CST.Token | null; value?: CST.Token }>) {
          if (it.key) stack.push([it.key, d + 1]);
          if (it.value) stack.push([it.value, d + 1]);
        }
        break;
      }
      default:
        break;
    }
  }
  return false;
}

/** Error tokens of a YAML text past which only the first is composed (see parseYamlDocuments). */
const MAX_ERROR_TOKENS = 1000;
/** Errors the Composer records in all (see capErrors). */
const MAX_COMPOSE_ERRORS = 100;

/**
 * Stops `composer` from recording errors past MAX_COMPOSE_ERRORS. Text with a fault on every
 * line (tab indentation, say) gives an error per line, each an Error with its stack: 100,000 of
 * them in a 500 KB body took seconds. The Composer reports them through its `onError` member
 * (yaml 2.x), wrapped here; test/unit/api/decode-limits.test.ts fails if that stops working.
 */
function capErrors(composer: Composer): void {
  const c = composer as unknown as { onError?: (...args: unknown[]) => void };
  const record = c.onError;
  if (typeof record !== 'function') return;
  let recorded = 0;
  c.onError = (...args: unknown[]) => {
    if (recorded++ < MAX_COMPOSE_ERRORS) record(...args);
  };
}

/**
 * `yaml`'s parseAllDocuments, with the depth checked between its (iterative) Parser and its
 * (recursive) Composer: a document nested deeper than `max` is never composed. Throws ApiError
 * 400 when too deep; other problems are in each document's `errors`, as with parseAllDocuments,
 * of which the first carries its position (` at line L, column C`); past MAX_ERROR_TOKENS error
 * tokens, only the first error token is composed.
 */
export function parseYamlDocuments(text: string, max: number = MAX_YAML_DEPTH): Document.Parsed[] {
  const { Composer, LineCounter, Parser } = yaml();
  const lineCounter = new LineCounter();
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  if (cstDepthExceeds(tokens, max)) throw errors.badRequest(`the request body could not be decoded as YAML: ${depthMessage(max)}`);
  // Broken text can hold an error token every few bytes (a 400 KB body: ~100,000), each
  // composed into an Error with a stack: beyond MAX_ERROR_TOKENS only the first is kept (a body
  // is refused with its first error), and the documents are composed all the same.
  let errorTokens = 0;
  for (const t of tokens) if (t.type === 'error') errorTokens++;
  const firstError = errorTokens > MAX_ERROR_TOKENS ? tokens.findIndex((t) => t.type === 'error') : -1;
  const composed = firstError < 0 ? tokens : tokens.filter((t, i) => t.type !== 'error' || i === firstError);
  // logLevel 'error': yaml's warnings (complex keys stringified...) would go to the process's stderr for any client.
  const composer = new Composer({ logLevel: 'error' });
  capErrors(composer);
  const docs = Array.from(composer.compose(composed)) as Document.Parsed[];
  // Only a document's first error is ever shown: it alone gets its position.
  for (const doc of docs) if (doc.errors.length) addPosition(doc.errors[0], text, lineCounter);
  return docs;
}

/**
 * The ` at line L, column C` that parseAllDocuments adds to a message (its prettyErrors), with
 * the `:` that announces its source excerpt (the excerpt itself is not kept: only the first line
 * of a message reaches the client).
 */
function addPosition(e: YAMLParseError, text: string, lc: LineCounter): void {
  const pos = e.pos?.[0];
  if (pos === undefined || pos < 0 || e.linePos) return;
  const start = lc.linePos(pos);
  e.linePos = [start];
  e.message += ` at line ${start.line}, column ${start.col}`;
  // The excerpt's line (and, when the column is in its indentation, the line before): only
  // whether it is long or has anything but spaces matters, so a long line is not copied.
  const lineEnd = (line: number) => {
    let end = lc.lineStarts[line] ?? text.length;
    while (end > lc.lineStarts[line - 1] && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
    return end;
  };
  let from = lc.lineStarts[start.line - 1];
  const to = lineEnd(start.line);
  if (start.line > 1 && /^ *$/.test(text.substring(from, Math.min(to, from + start.col - 1)))) from = lc.lineStarts[start.line - 2];
  if (to - from > 80 || /[^ ]/.test(text.substring(from, to))) e.message += ':';
}
