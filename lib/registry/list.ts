/**
 * Lists: the spec's resourceVersion table decides where a list reads (watch cache or etcd) and
 * at which revision; every chunk of a paginated list reads that one revision, so the chunks
 * form one snapshot. Selectors that filter items out read on until the page is full.
 */
import { ApiObject } from '../scheme/types';
import { decodeKv, servedJsonOf, ServedJson } from '../storage/storage-codec';
import { KeyValue } from '../storage/interfaces';
import { CacheIndex } from '../storage/cacher/field-index';
import { matchesLabels } from '../meta/label-selector';
import { matchesFields, requirementFor } from '../meta/field-selector';
import { ApiError, errors } from '../meta/api-errors';
import { GenericStore } from './store';
import { ListOptions } from './options';
import { ContinueToken, decodeContinue, encodeContinue, EXPIRED_CONTINUE_MESSAGE } from './continue-token';
import { planList } from './read-plan';
import { openReadSource, ReadSource } from './read-source';

export interface ListResult {
  /** The items as objects; empty when `raw` was asked for. */
  items: ApiObject[];
  /** With `raw`: each item's JSON as served, made from the stored bytes where possible (see joinJson). */
  rawItems?: Array<Buffer | ServedJson>;
  resourceVersion: string;
  continue: string;
  remainingItemCount?: number;
}

/** Default lifetime of a continue token. */
export const DEFAULT_CONTINUE_TTL_MS = 5 * 60 * 1000;

/** The fields a field selector can match on, for one object. */
export function fieldsOf(store: GenericStore, obj: ApiObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (store.def.namespaced) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  return { ...fields, ...(store.def.strategy.fieldSet?.(obj) ?? {}) };
}

/**
 * The watch cache's index of a kind with an indexed field (Strategy.indexedField), on its stored
 * objects (a change's decoding is the one its watch streams use). A value that does not decode is indexed as '' (the watchers of '' and the unindexed
 * ones meet its decode error, as every watcher did before), never an error in the cache's own watch.
 */
export function cacheIndexOf(store: GenericStore): CacheIndex | undefined {
  const field = store.def.strategy.indexedField;
  if (field === undefined) return undefined;
  const valueOf = (object: () => ApiObject): string => {
    try {
      return fieldsOf(store, object())[field] ?? '';
    } catch {
      return '';
    }
  };
  return { field, valueOf };
}

/** The value of the watch cache's indexed field that a list or watch can be narrowed to, if any. */
export function indexValueFor(store: GenericStore, opts: ListOptions): string | undefined {
  const field = store.deps.cache?.indexedField;
  return field !== undefined && field === store.def.strategy.indexedField && opts.fieldSelector
    ? requirementFor(opts.fieldSelector, field) : undefined;
}

export function matches(store: GenericStore, obj: ApiObject, opts: ListOptions): boolean {
  if (opts.labelSelector && !matchesLabels(opts.labelSelector, obj.metadata?.labels)) return false;
  if (opts.fieldSelector && !matchesFields(opts.fieldSelector, fieldsOf(store, obj))) return false;
  return true;
}

/** The namespace a list is confined to: the path's, or a `metadata.namespace=` field selector's. */
export function listNamespace(store: GenericStore, namespace: string | undefined, opts: ListOptions): string | undefined {
  const fromSelector = opts.fieldSelector && requirementFor(opts.fieldSelector, 'metadata.namespace');
  return store.def.namespaced && !namespace && fromSelector ? fromSelector : namespace;
}

/**
 * Reads a list per the options. `namespace` undefined lists across all namespaces. `raw`:
 * return the items as JSON bytes (rawItems) instead of objects, so a plain JSON list response
 * needs no parse and no stringify of the stored values.
 */
export async function list(store: GenericStore, namespace: string | undefined, opts: ListOptions, raw = false): Promise<ListResult> {
  namespace = listNamespace(store, namespace, opts);
  const prefix = store.collectionPrefix(namespace);
  const token = opts.continue ? decodeContinue(opts.continue) : undefined;
  const plan = planList({ resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch, limit: opts.limit, continueRevision: token?.rv });
  if (token && Date.now() - token.issuedAt > store.deps.continueTtlMs) throw await expiredContinue(store, token);
  let source: ReadSource;
  try {
    source = await openReadSource(store.storage, store.deps.cache, plan, prefix);
  } catch (err) {
    if (token && err instanceof ApiError && err.code === 410) throw await expiredContinue(store, token);
    throw err;
  }
  try {
    return await readPage(store, namespace, prefix, source, opts, token, raw);
  } catch (err) {
    if (token && err instanceof ApiError && err.code === 410) throw await expiredContinue(store, token);
    throw err;
  }
}

async function readPage(store: GenericStore, namespace: string | undefined, prefix: string, source: ReadSource,
  opts: ListOptions, token: ContinueToken | undefined, raw: boolean): Promise<ListResult> {
  // metadata.name=X narrows the read to one key.
  const name = opts.fieldSelector && requirementFor(opts.fieldSelector, 'metadata.name');
  if (name !== undefined && (!store.def.namespaced || namespace) && !token) {
    const kv = await source.get(store.key(namespace, name));
    const obj = kv ? (await store.outputKvs([kv]))[0] : undefined;
    const found = obj && matches(store, obj, opts) ? [obj] : [];
    return { items: raw ? [] : found, rawItems: raw ? found.map((o) => Buffer.from(JSON.stringify(o))) : undefined, resourceVersion: String(source.revision), continue: '' };
  }

  const items: ApiObject[] = [];
  const rawItems: Array<Buffer | ServedJson> = [];
  // Objects are decoded only to match selectors or to shape output; a plain raw list splices bytes.
  const decodeAll = !raw || !!opts.labelSelector || !!opts.fieldSelector || !!store.def.strategy.decorate;
  const versioning = store.def.versioning;
  let taken = 0;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  let startKey = token ? prefix + token.start : prefix;
  // `spec.nodeName=X` on pods: the watch cache reads node X's keys only (the selector still applies).
  const indexValue = indexValueFor(store, opts);
  let more = false;
  let remaining: number | undefined;
  let lastKey = '';
  for (;;) {
    // With a selector, read ahead: most of a read may be filtered out.
    const want = !limit ? 0 : opts.hasSelector ? Math.max(limit - taken, Math.min(limit * 2, 1000)) : limit - taken;
    const res = await source.range(prefix, { limit: want || undefined, startKey, indexValue });
    let consumed = 0;
    // A converted def converts what it read in one batch: one conversion per page.
    const converted = versioning ? await convertedPage(store, res.kvs, decodeAll) : undefined;
    for (const [i, kv] of res.kvs.entries()) {
      consumed++;
      lastKey = kv.key;
      if (converted) {
        const obj = converted[i];
        if (!obj) rawItems.push(servedJsonOf(kv) ?? Buffer.from(JSON.stringify(store.output(decodeKv(kv)))));
        else if (!matches(store, obj, opts)) continue;
        else if (raw) rawItems.push(Buffer.from(JSON.stringify(obj)));
        else items.push(obj);
      } else if (decodeAll) {
        const obj = store.output(decodeKv(kv));
        if (!matches(store, obj, opts)) continue;
        if (raw) rawItems.push(store.def.strategy.decorate ? Buffer.from(JSON.stringify(obj)) : servedJsonOf(kv) ?? Buffer.from(JSON.stringify(obj)));
        else items.push(obj);
      } else {
        rawItems.push(servedJsonOf(kv) ?? Buffer.from(JSON.stringify(store.output(decodeKv(kv)))));
      }
      taken++;
      if (limit && taken >= limit) break;
    }
    more = res.more || consumed < res.kvs.length;
    if (!limit || taken >= limit || !res.more) {
      if (more && limit) remaining = res.count - consumed;
      break;
    }
    startKey = `${lastKey}\x00`;
  }
  const result: ListResult = { items, rawItems: raw ? rawItems : undefined, resourceVersion: String(source.revision), continue: '' };
  if (limit && more) {
    result.continue = encodeContinue({ rv: source.revision, start: `${lastKey.slice(prefix.length)}\x00`, issuedAt: token?.issuedAt ?? Date.now() });
    if (!opts.hasSelector && remaining !== undefined) result.remainingItemCount = remaining;
  }
  return result;
}

/**
 * The served objects of a read of a converted def, one conversion for all that need one;
 * undefined where the stored bytes serve as they are (only when `decodeAll` is false).
 */
async function convertedPage(store: GenericStore, kvs: readonly KeyValue[], decodeAll: boolean): Promise<Array<ApiObject | undefined>> {
  const v = store.def.versioning!;
  const out: Array<ApiObject | undefined> = new Array(kvs.length);
  const needed = decodeAll ? kvs.map((_, i) => i) : kvs.flatMap((kv, i) => (v.servesStored(kv.value) ? [] : [i]));
  if (!needed.length) return out;
  const objs = await store.outputKvs(needed.map((i) => kvs[i]), true);
  needed.forEach((i, j) => { out[i] = objs[j]; });
  return out;
}

/** 410 Expired with a fresh, inconsistent token that resumes at the same key at the current revision. */
async function expiredContinue(store: GenericStore, token: ContinueToken): Promise<ApiError> {
  let fresh: string | undefined;
  try {
    fresh = encodeContinue({ rv: await store.storage.currentRevision(), start: token.start, issuedAt: Date.now() });
  } catch {
    fresh = undefined;
  }
  return errors.expired(EXPIRED_CONTINUE_MESSAGE, fresh);
}
