/**
 * The OpenAPI documents of extension API servers as this server's OpenAPI routes use them, and
 * kube-openapi's rules for putting them together with the server's own:
 * - a remote v2 document keeps only the paths under its APIService's `/apis/<group>/<version>/`
 *   and the definitions and parameters they refer to (FilterSpecByPathsWithoutSideEffects);
 * - documents are merged in priority order, this server's first: a path already present is
 *   ignored; a definition (or parameter) of a name already used is reused when it is the same,
 *   and otherwise renamed `<name>_v2`, `_v3`, ... with every reference to it in the incoming
 *   document (MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters).
 * The source itself (fetching, refetching, ETags) is the aggregation layer's (lib/aggregation).
 */
import type { Context } from 'koa';
import type { Json } from './schema-writer';

export interface RemoteOpenApiSource {
  /** The remote v2 documents, filtered to their APIService's paths, in priority order; the same array until one changes. */
  v2Documents(): readonly Json[];
  /** The remote v3 index entries (`apis/<group>/<version>` -> serverRelativeURL); the same map until one changes. */
  v3Paths(): ReadonlyMap<string, string>;
  /** The v3 document of `key` converted from its backend's v2 document (a backend without v3), served as this server's own. */
  v3Converted(key: string): { body: Buffer; hash: string } | undefined;
  /**
   * Answers the request for the v3 document of `key` by forwarding it, with the caller's identity,
   * to the backend of the APIService that lists it; false when none does.
   */
  proxyV3Document(key: string, ctx: Context): Promise<boolean>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

const DEF = '#/definitions/';
const PARAM = '#/parameters/';

/** Calls `visit` on every `$ref` string in `node`; a returned string replaces it (a copy is made only where something changes). */
function mapRefs(node: unknown, visit: (ref: string) => string | undefined): unknown {
  if (Array.isArray(node)) {
    let out: unknown[] | undefined;
    node.forEach((v, i) => {
      const m = mapRefs(v, visit);
      if (m !== v) (out ??= [...node])[i] = m;
    });
    return out ?? node;
  }
  if (!isObj(node)) return node;
  let out: Obj | undefined;
  for (const [k, v] of Object.entries(node)) {
    const m = k === '$ref' && typeof v === 'string' ? (visit(v) ?? v) : mapRefs(v, visit);
    if (m !== v) (out ??= { ...node })[k] = m;
  }
  return out ?? node;
}

function refsIn(node: unknown, prefix: string): Set<string> {
  const found = new Set<string>();
  mapRefs(node, (r) => { if (r.startsWith(prefix)) found.add(r.slice(prefix.length)); return undefined; });
  return found;
}

/** Only the paths starting with one of `prefixes`, and the definitions and parameters they use (transitively). */
export function filterByPaths(doc: Json, prefixes: readonly string[]): Json {
  return filterPaths(doc, (p) => prefixes.some((x) => p.startsWith(x)));
}

function filterPaths(doc: Json, keep: (path: string) => boolean): Json {
  const paths = isObj(doc.paths) ? doc.paths : {};
  const kept: Obj = {};
  for (const [p, item] of Object.entries(paths)) if (keep(p)) kept[p] = item;
  const definitions = isObj(doc.definitions) ? doc.definitions : {};
  const parameters = isObj(doc.parameters) ? doc.parameters : {};
  const usedParams = refsIn(kept, PARAM);
  const usedDefs = new Set<string>();
  const queue = [...refsIn(kept, DEF), ...[...usedParams].flatMap((p) => [...refsIn(parameters[p], DEF)])];
  while (queue.length) {
    const name = queue.pop()!;
    if (usedDefs.has(name) || !(name in definitions)) continue;
    usedDefs.add(name);
    queue.push(...refsIn(definitions[name], DEF));
  }
  const out: Json = { ...doc, paths: kept, definitions: Object.fromEntries([...usedDefs].sort().map((d) => [d, definitions[d]])) };
  if (isObj(doc.parameters)) out.parameters = Object.fromEntries([...usedParams].filter((p) => p in parameters).sort().map((p) => [p, parameters[p]]));
  return out;
}

/** Key-order-independent JSON equality. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && same(a[k], b[k]));
}

/** Renames of `source`'s entries of one section whose names `dest` already uses for something else. */
function renamesFor(dest: Obj, source: Obj): Map<string, string> {
  const used = new Set(Object.keys(dest));
  const renames = new Map<string, string>();
  for (const [name, value] of Object.entries(source)) {
    if (!used.has(name)) { used.add(name); continue; }
    if (name in dest && same(dest[name], value)) continue;
    let i = 2;
    while (used.has(`${name}_v${i}`) || `${name}_v${i}` in source) i++;
    renames.set(name, `${name}_v${i}`);
    used.add(`${name}_v${i}`);
  }
  return renames;
}

function sorted(o: Obj): Obj {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

/** `base` (this server's v2 document) with every one of `sources` merged in, in order. */
export function mergeV2Documents(base: Json, sources: readonly Json[]): Json {
  const paths: Obj = { ...(isObj(base.paths) ? base.paths : {}) };
  const definitions: Obj = { ...(isObj(base.definitions) ? base.definitions : {}) };
  const parameters: Obj | undefined = isObj(base.parameters) ? { ...base.parameters } : undefined;
  let params = parameters;
  for (let source of sources) {
    if (!isObj(source.paths)) continue;
    const keep = Object.keys(source.paths).filter((p) => !(p in paths));
    if (!keep.length) continue;
    if (keep.length < Object.keys(source.paths).length) source = filterPaths(source, (p) => !(p in paths));
    const srcDefs = isObj(source.definitions) ? source.definitions : {};
    const srcParams = isObj(source.parameters) ? source.parameters : {};
    const defRenames = renamesFor(definitions, srcDefs);
    const paramRenames = renamesFor(params ?? {}, srcParams);
    const rename = (r: string) => {
      if (r.startsWith(DEF)) { const n = defRenames.get(r.slice(DEF.length)); return n === undefined ? undefined : DEF + n; }
      if (r.startsWith(PARAM)) { const n = paramRenames.get(r.slice(PARAM.length)); return n === undefined ? undefined : PARAM + n; }
      return undefined;
    };
    const renamed = (defRenames.size || paramRenames.size ? mapRefs(source, rename) : source) as Json;
    for (const [name, value] of Object.entries(isObj(renamed.definitions) ? renamed.definitions : {})) {
      const to = defRenames.get(name) ?? name;
      if (!(to in definitions)) definitions[to] = value;
    }
    for (const [name, value] of Object.entries(isObj(renamed.parameters) ? renamed.parameters : {})) {
      params ??= {};
      const to = paramRenames.get(name) ?? name;
      if (!(to in params)) params[to] = value;
    }
    for (const p of keep) paths[p] = (renamed.paths as Obj)[p];
  }
  const out: Json = { ...base, paths: sorted(paths), definitions: sorted(definitions) };
  if (params) out.parameters = sorted(params);
  return out;
}

const SCHEMAS = '#/components/schemas/';
const COMPONENT_PARAMS = '#/components/parameters/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function v3Parameter(p: unknown): unknown {
  if (!isObj(p) || typeof p.$ref === 'string') return p;
  const { type, format, items, uniqueItems, enum: enumeration, default: dflt, collectionFormat: _c, ...rest } = p;
  const schema: Obj = {};
  if (type !== undefined) schema.type = type;
  if (format !== undefined) schema.format = format;
  if (items !== undefined) schema.items = items;
  if (uniqueItems !== undefined) schema.uniqueItems = uniqueItems;
  if (enumeration !== undefined) schema.enum = enumeration;
  if (dflt !== undefined) schema.default = dflt;
  return { ...rest, schema };
}

function v3Operation(op: Obj, consumes: unknown, produces: unknown): Obj {
  const { parameters, responses, consumes: c, produces: p, schemes: _s, ...rest } = op;
  const inTypes = strings(c ?? consumes, 'application/json');
  const outTypes = strings(p ?? produces, 'application/json');
  const out: Obj = { ...rest };
  const params: unknown[] = [];
  for (const param of Array.isArray(parameters) ? parameters : []) {
    if (isObj(param) && param.in === 'body') {
      out.requestBody = {
        content: Object.fromEntries(inTypes.map((t) => [t, { schema: param.schema ?? {} }])),
        ...(param.required ? { required: true } : {}),
        ...(typeof param.description === 'string' ? { description: param.description } : {}),
      };
    } else {
      params.push(v3Parameter(param));
    }
  }
  if (params.length) out.parameters = params;
  if (isObj(responses)) {
    out.responses = Object.fromEntries(Object.entries(responses).map(([code, r]) => {
      if (!isObj(r)) return [code, r];
      const { schema, ...restResponse } = r;
      return [code, schema === undefined ? restResponse : { ...restResponse, content: Object.fromEntries(outTypes.map((t) => [t, { schema }])) }];
    }));
  }
  return out;
}

function strings(v: unknown, fallback: string): string[] {
  const list = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return list.length ? list : [fallback];
}

/**
 * A Swagger 2.0 document as an OpenAPI 3.0 one, for an extension server that serves no
 * `/openapi/v3` (kube-openapi's lossy ConvertV2ToV3): definitions become components.schemas,
 * body parameters request bodies, response schemas content of the produced media types.
 */
export function convertV2ToV3(doc: Json): Json {
  const rewritten = mapRefs(doc, (r) => {
    if (r.startsWith(DEF)) return SCHEMAS + r.slice(DEF.length);
    if (r.startsWith(PARAM)) return COMPONENT_PARAMS + r.slice(PARAM.length);
    return undefined;
  }) as Json;
  const paths: Obj = {};
  for (const [p, item] of Object.entries(isObj(rewritten.paths) ? rewritten.paths : {})) {
    if (!isObj(item)) continue;
    const out: Obj = {};
    for (const [k, v] of Object.entries(item)) {
      if (METHODS.includes(k) && isObj(v)) out[k] = v3Operation(v, rewritten.consumes, rewritten.produces);
      else if (k === 'parameters' && Array.isArray(v)) out[k] = v.map(v3Parameter);
      else out[k] = v;
    }
    paths[p] = out;
  }
  const components: Obj = { schemas: isObj(rewritten.definitions) ? sorted(rewritten.definitions) : {} };
  if (isObj(rewritten.parameters)) components.parameters = Object.fromEntries(Object.entries(rewritten.parameters).map(([k, v]) => [k, v3Parameter(v)]));
  return { openapi: '3.0.0', info: isObj(rewritten.info) ? rewritten.info : {}, paths: sorted(paths), components };
}
