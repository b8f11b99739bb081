/**
 * Resolution of a simple JSON path (`.spec.replicas`, `.spec['a.b']`, `.spec.labels.x`) in a
 * structural schema, as Kubernetes' `ValidFieldPath` does it for selectable fields and printer
 * columns: the field path (`spec.replicas`, map keys as `[key]`) and the schema found, or
 * Kubernetes' error text.
 */
import { Structural, additionalSchema } from './structural';

/** The result of fieldPathInSchema: `error` set when the path does not resolve. */
export interface FieldPathResult { path: string; schema?: Structural; error?: string }

// Splits like Kubernetes' scanner: delimiters `.`, `[`, `]`, single-quoted strings kept whole.
function tokens(p: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.' || c === '[' || c === ']') { out.push(c); i++; continue; }
    let j = i;
    if (c === "'") {
      j++;
      while (j < p.length && !(p[j] === "'" && p[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, p.length);
    } else {
      while (j < p.length && !'.[]'.includes(p[j])) j++;
    }
    out.push(p.slice(i, j));
    i = j;
  }
  return out;
}

/** Resolves `jsonPath` in `s` (the version's root schema). */
export function fieldPathInSchema(jsonPath: string, s: Structural): FieldPathResult {
  const toks = tokens(jsonPath);
  let path = '';
  let cur: Structural | undefined = s;
  const step = (name: string): string | undefined => {
    if (!cur) return 'does not refer to a valid field';
    if (cur.properties) {
      path = path ? `${path}.${name}` : name;
      cur = Object.hasOwn(cur.properties, name) ? cur.properties[name] : undefined;
      return cur ? undefined : 'does not refer to a valid field';
    }
    if (cur.additionalProperties !== undefined) {
      path = `${path}[${name}]`;
      cur = additionalSchema(cur);
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    let err: string | undefined;
    if (t === '[') {
      const q = toks[++i];
      if (q === undefined) return { path, error: 'unexpected end of JSON path' };
      if (q.length < 2 || q[0] !== "'" || q[q.length - 1] !== "'") return { path, error: `expected single quoted string but got ${q}` };
      err = step(q.slice(1, -1).replace(/\\'/g, "'").replace(/\\\\/g, '\\'));
      if (err) return { path, error: err };
      const close = toks[++i];
      if (close === undefined) return { path, error: 'unexpected end of JSON path' };
      if (close !== ']') return { path, error: `expected ] but got ${close}` };
    } else if (t === '.') {
      const name = toks[++i];
      if (name === undefined) return { path, error: 'unexpected end of JSON path' };
      err = step(name);
      if (err) return { path, error: err };
    } else {
      return { path, error: `expected [ or . but got: ${t}` };
    }
  }
  return { path, schema: cur };
}
