/**
 * The part of kubectl's JSONPath (client-go util/jsonpath) that printer columns use: a template
 * `{<path>}` of field steps (`.a.b`, `.*`, `\.` escapes a dot in a name), array steps (`[n]`,
 * negative indexes, slices `[a:b:c]`, `[*]`) and dict keys (`['key']`, which client-go reads as
 * `.key`, so a dot inside it still splits). Evaluation keeps client-go's quirks: missing keys
 * give no result (AllowMissingKeys), an index out of range or `[..]` on a non-list is an error.
 * Filters, unions and recursive descent are refused at parse time.
 */

/** One step of a parsed path. */
export type JsonPathStep =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'array'; start?: number; end?: number; endDerived?: boolean; step?: number };

/** A parsed path; `steps` applied in order to the object. */
export interface JsonPath { source: string; steps: JsonPathStep[] }

/** Parse or evaluation failure, with client-go's words. */
export class JsonPathError extends Error {}

const TERMINATORS = new Set([' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;

/** Parses a column's JSONPath (`.spec.replicas`), as Kubernetes parses `{<path>}`. */
export function parseJsonPath(path: string): JsonPath {
  const steps: JsonPathStep[] = [];
  parseInto(path, steps);
  return { source: path, steps };
}

function parseInto(text: string, steps: JsonPathStep[]): void {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '@' || c === '$') { i++; continue; }
    if (text.startsWith('..', i)) throw new JsonPathError('recursive descent is not supported');
    if (c === '.') {
      let j = i + 1;
      // A backslash makes the next character part of the name (`app\.kubernetes\.io`); then every
      // backslash is dropped, as client-go does.
      while (j < text.length && !TERMINATORS.has(text[j])) j += text[j] === '\\' ? 2 : 1;
      const name = text.slice(i + 1, Math.min(j, text.length)).replace(/\\/g, '');
      steps.push(name === '*' ? { kind: 'wildcard' } : { kind: 'field', name });
      i = j;
      continue;
    }
    if (c === '[') {
      if (text.startsWith('[?(', i)) throw new JsonPathError('filters are not supported');
      const close = text.indexOf(']', i);
      const nl = text.indexOf('\n', i);
      if (close < 0 || (nl >= 0 && nl < close)) throw new JsonPathError('unterminated array');
      let inner = text.slice(i + 1, close);
      i = close + 1;
      if (inner === '*') inner = ':';
      if (inner.includes(',')) throw new JsonPathError('unions are not supported');
      const key = /^'([^']*)'$/.exec(inner);
      if (key) { parseInto(`.${key[1]}`, steps); continue; }
      steps.push(arrayStep(inner));
      continue;
    }
    throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(c)}`);
  }
}

function arrayStep(inner: string): JsonPathStep {
  const m = SLICE.exec(inner);
  if (!m) throw new JsonPathError(`invalid array index ${inner}`);
  const num = (s: string) => {
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new JsonPathError(`array index ${s} is not a number`);
    return n;
  };
  const step: JsonPathStep = { kind: 'array' };
  if (m[1] !== '') step.start = num(m[1]);
  if (m[2] === undefined) {
    // `[n]` is the slice n:n+1 (a derived end: `[-1]` is the last item).
    step.end = (step.start ?? 0) + 1;
    step.endDerived = true;
  } else if (m[2].length > 1) {
    step.end = num(m[2].slice(1));
  }
  if (m[3] !== undefined && m[3].length > 1) step.step = num(m[3].slice(1));
  return step;
}

/**
 * The values `path` selects in `data`, in order ([] when a key is missing). Throws
 * JsonPathError where client-go's FindResults fails (index out of range, `[..]` on a non-list).
 */
export function findResults(path: JsonPath, data: unknown): unknown[] {
  let cur: unknown[] = [data];
  for (const step of path.steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (v === null || v === undefined) continue;
      if (step.kind === 'field') {
        if (isMap(v) && Object.hasOwn(v, step.name)) next.push(v[step.name]);
      } else if (step.kind === 'wildcard') {
        if (Array.isArray(v)) next.push(...v);
        else if (isMap(v)) next.push(...Object.values(v));
        else if (typeof v === 'string') next.push(...Buffer.from(v, 'utf8'));
      } else {
        next.push(...slice(v, step));
      }
    }
    cur = next;
  }
  return cur;
}

function slice(v: unknown, step: Extract<JsonPathStep, { kind: 'array' }>): unknown[] {
  if (!Array.isArray(v)) throw new JsonPathError(`${typeName(v)} is not array or slice`);
  const len = v.length;
  let start = step.start ?? 0;
  if (start < 0) start += len;
  let end = step.end ?? len;
  if (end < 0 || (end === 0 && step.endDerived)) end += len;
  if (end === start) return [];
  if (start >= len || start < 0) throw new JsonPathError(`array index out of bounds: index ${start}, length ${len}`);
  if (end > len || end < 0) throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
  if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
  const by = step.step ?? 1;
  if (step.step !== undefined && by <= 0) throw new JsonPathError('step must be > 0');
  const out: unknown[] = [];
  for (let i = start; i < end; i += by) out.push(v[i]);
  return out;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Go's names for the JSON value types of an unstructured object, as its errors print them.
function typeName(v: unknown): string {
  if (isMap(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return 'interface {}';
}
