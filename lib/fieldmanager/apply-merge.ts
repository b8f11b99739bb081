/**
 * The merge step of server-side apply: the live object combined with the applied configuration
 * (structured-merge-diff's Merge). Nothing is removed here; removal of fields the applier gave up
 * is `prune`'s job.
 *
 * - scalars and atomic values: the configuration's value replaces the live one;
 * - granular structs and maps: the union of keys, merged key by key;
 * - `set` and `map` lists: items matched by value or by key fields and merged item by item, in
 *   structured-merge-diff's order (see mergeItems).
 * - a null or absent container in the configuration leaves the live one alone.
 */
import { Schema } from '../scheme/schema';
import { indexItems } from './compare';
import { cloneJson, isEmptyContainer, isPlainObject } from './json-value';
import { childOf, itemsOf, shapeOf } from './schema-shape';

/** The merged value; inputs are not modified. */
export function mergeApplied(live: unknown, config: unknown, schema: Schema | undefined): unknown {
  if (config === undefined) return cloneJson(live);
  if (live === undefined) return cloneJson(config);
  const shape = shapeOf(schema, config);
  switch (shape.kind) {
    case 'scalar':
    case 'atomic':
      return cloneJson(config);
    case 'object': {
      if (!isPlainObject(config)) return config === null && !isEmptyContainer(live) ? cloneJson(live) : cloneJson(config);
      if (!isPlainObject(live)) return cloneJson(config);
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(live)) out[k] = mergeApplied(live[k], config[k], childOf(schema, k).schema);
      for (const k of Object.keys(config)) if (!(k in live)) out[k] = cloneJson(config[k]);
      return out;
    }
    default: {
      if (!Array.isArray(config)) return config === null && !isEmptyContainer(live) ? cloneJson(live) : cloneJson(config);
      if (!Array.isArray(live)) return cloneJson(config);
      const items = itemsOf(schema);
      return mergeItems(indexItems(shape, live, items), indexItems(shape, config, items), items);
    }
  }
}

/**
 * Both lists are walked side by side. Items in both come out in the configuration's order; a
 * live-only item comes out where the walk over the live list meets it, so it keeps its place
 * relative to the items around it; a configuration-only item comes out where the walk over the
 * configuration meets it. (live [a], config [b] gives [a, b]; live [a, b, c], config [c, a]
 * gives [b, c, a].)
 */
function mergeItems(live: Map<string, unknown>, config: Map<string, unknown>, items: Schema | undefined): unknown[] {
  const l = [...live.keys()];
  const c = [...config.keys()];
  const shared = c.filter((k) => live.has(k));
  const out: unknown[] = [];
  let li = 0;
  let ci = 0;
  let si = 0;
  while (li < l.length || ci < c.length) {
    const lk = l[li];
    const ck = c[ci];
    if (li < l.length && ci < c.length && lk === ck) {
      out.push(mergeApplied(live.get(lk), config.get(ck), items));
      if (shared[si] === ck) si++;
      li++;
      ci++;
    } else if (li < l.length && ci < c.length && config.has(lk) && shared[si] !== lk) {
      li++; // shared, but its turn comes later in the configuration's order
    } else if (li < l.length && !config.has(lk)) {
      out.push(cloneJson(live.get(lk)));
      li++;
    } else if (ci < c.length) {
      out.push(mergeApplied(live.get(ck), config.get(ck), items));
      if (shared[si] === ck) si++;
      ci++;
    } else {
      li++; // a shared item already merged
    }
  }
  return out;
}
