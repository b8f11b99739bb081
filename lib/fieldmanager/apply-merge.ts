/**
 * The merge step of server-side apply: the live object combined with the applied configuration
 * (structured-merge-diff's Merge). Nothing is removed here; removal of fields the applier gave up
 * is `prune`'s job.
 *
 * - scalars and atomic values: the configuration's value replaces the live one;
 * - granular structs and maps: the union of keys, merged key by key;
 * - `set` and `map` lists: items matched by value or by key fields and merged item by item. Order:
 *   the configuration's items in its order; live-only items keep their place before the next
 *   item they preceded in the live list, or go to the end.
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
      const liveItems = indexItems(shape, live, items);
      const configItems = indexItems(shape, config, items);
      const liveOrder = [...liveItems.keys()];
      const emitted = new Set<string>();
      const out: unknown[] = [];
      let cursor = 0;
      // Live-only items that sit before position `upTo` of the live list.
      const flushLiveOnly = (upTo: number) => {
        for (; cursor < upTo; cursor++) {
          const k = liveOrder[cursor];
          if (!configItems.has(k) && !emitted.has(k)) {
            out.push(cloneJson(liveItems.get(k)));
            emitted.add(k);
          }
        }
      };
      for (const [k, item] of configItems) {
        const at = liveOrder.indexOf(k);
        if (at >= 0) flushLiveOnly(at);
        out.push(mergeApplied(liveItems.get(k), item, items));
        emitted.add(k);
      }
      flushLiveOnly(liveOrder.length);
      return out;
    }
  }
}
