/**
 * Lists: one etcd range (or several, to fill a page when selectors filter items out), all at
 * one revision so that every chunk of a paginated list is the same snapshot.
 */
import { ApiObject } from '../scheme/types';
import { decodeKv } from '../scheme/storage-codec';
import { matchesLabels } from '../meta/label-selector';
import { matchesFields, requirementFor } from '../meta/field-selector';
import { errors } from '../meta/api-errors';
import { StorageError } from '../storage/errors';
import { GenericStore } from './store';
import { ListOptions } from './options';
import { decodeContinue, encodeContinue } from './continue-token';

export interface ListResult {
  items: ApiObject[];
  resourceVersion: string;
  continue: string;
  remainingItemCount?: number;
}

/** The fields a field selector can match on, for one object. */
export function fieldsOf(store: GenericStore, obj: ApiObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (store.def.namespaced) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  return { ...fields, ...(store.def.strategy.fieldSet?.(obj) ?? {}) };
}

export function matches(store: GenericStore, obj: ApiObject, opts: ListOptions): boolean {
  if (opts.labelSelector && !matchesLabels(opts.labelSelector, obj.metadata?.labels)) return false;
  if (opts.fieldSelector && !matchesFields(opts.fieldSelector, fieldsOf(store, obj))) return false;
  return true;
}

/** Reads a list per the options. `namespace` undefined lists across all namespaces. */
export async function list(store: GenericStore, namespace: string | undefined, opts: ListOptions): Promise<ListResult> {
  const nsFromSelector = opts.fieldSelector && requirementFor(opts.fieldSelector, 'metadata.namespace');
  if (store.def.namespaced && !namespace && nsFromSelector) namespace = nsFromSelector;
  const prefix = store.collectionPrefix(namespace);

  let revision = 0;
  let startKey = prefix;
  if (opts.continue) {
    const token = decodeContinue(opts.continue);
    revision = token.rv;
    startKey = prefix + token.start;
  } else if (opts.resourceVersion && opts.resourceVersion !== '0' && opts.limit && opts.resourceVersionMatch !== 'NotOlderThan') {
    revision = Number(opts.resourceVersion);
  }

  // metadata.name=X narrows the read to one key.
  const name = opts.fieldSelector && requirementFor(opts.fieldSelector, 'metadata.name');
  if (name !== undefined && (!store.def.namespaced || namespace) && !opts.continue) {
    const { kv, revision: rev } = await readAt(() => store.storage.get(store.key(namespace, name), { revision: revision || undefined }), opts);
    const obj = kv ? store.output(decodeKv(kv)) : undefined;
    return { items: obj && matches(store, obj, opts) ? [obj] : [], resourceVersion: String(revision || rev), continue: '' };
  }

  const items: ApiObject[] = [];
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  let more = false;
  let remaining: number | undefined;
  let lastKey = '';
  for (;;) {
    const want = limit ? Math.max(limit - items.length, Math.min(limit * 2, 1000)) : 0;
    const res = await readAt(() => store.storage.range(prefix, { revision: revision || undefined, limit: want || undefined, startKey }), opts);
    if (!revision) revision = res.revision;
    let consumed = 0;
    for (const kv of res.kvs) {
      consumed++;
      const obj = store.output(decodeKv(kv));
      if (matches(store, obj, opts)) items.push(obj);
      lastKey = kv.key;
      if (limit && items.length >= limit) break;
    }
    more = res.more || consumed < res.kvs.length;
    if (!limit || items.length >= limit || !res.more) {
      if (more && limit) remaining = res.count - consumed;
      break;
    }
    startKey = `${lastKey}\x00`;
  }
  const result: ListResult = { items, resourceVersion: String(revision), continue: '' };
  if (limit && more) {
    result.continue = encodeContinue({ rv: revision, start: `${lastKey.slice(prefix.length)}\x00` });
    if (!opts.hasSelector && remaining !== undefined) result.remainingItemCount = remaining;
  }
  return result;
}

/** A compacted revision turns into 410 with Kubernetes' texts. */
async function readAt<T>(read: () => Promise<T>, opts: ListOptions): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof StorageError && err.code === 'Compacted') {
      if (opts.continue) {
        throw errors.expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
      }
      throw errors.expired(`too old resource version: ${opts.resourceVersion}`);
    }
    if (err instanceof StorageError && err.code === 'FutureRevision') {
      throw errors.timeout(`Too large resource version: ${opts.resourceVersion}, current: unknown`, 1);
    }
    throw err;
  }
}
