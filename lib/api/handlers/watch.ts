/**
 * GET with `watch`: a stream of watch events, one JSON document per line. The start follows the
 * spec's table (registry/read-plan.ts planWatch): unset/0 send the current state as ADDED first,
 * a version streams the changes after it, `sendInitialEvents` ends the state with a BOOKMARK
 * annotated as the end of initial events. Served from the watch cache when it runs, otherwise
 * from one etcd watch. Selectors follow objects in (ADDED) and out (DELETED) of the selection.
 */
import { ResourceScope } from './scope';
import { parseBool, parseInteger, parseListOptions } from '../query';
import { selectableFields } from './list';
import { indexValueFor, listNamespace, matches } from '../../registry/list';
import { planWatch, ReadPlan } from '../../registry/read-plan';
import { openReadSource, tooLarge, tooOld, TOO_LARGE_WAIT_MS } from '../../registry/read-source';
import { decodeFromStorage } from '../../storage/storage-codec';
import { ApiObject } from '../../scheme/types';
import { KeyValue, StorageEvent, WatchHandle, WatchHandlers } from '../../storage/interfaces';
import { StorageError } from '../../storage/errors';
import { previousValueOf } from '../../storage/cacher/event-objects';
import { toApiError } from '../response-writer';
import { drainedOrClosed } from '../json-list-body';
import { decodeEvent, decodeEventConverted, encodedBatchOnce, encodedOnce } from '../shared-events';
import { negotiateResponse } from '../negotiation';
import { watchEncoder } from '../watch-encoder';
import { watchMetricsOf } from '../../metrics/etcd-metrics';
import { WatchRecorder } from '../../metrics/watch-metrics';

export interface WatchEvent { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: unknown }

/** How often a bookmark is sent to watchers that asked for them. */
const BOOKMARK_INTERVAL_MS = 60_000;

export async function handleWatch(s: ResourceScope): Promise<void> {
  const query = new URLSearchParams(s.ctx.querystring);
  // JSON lines, a Table per event (kubectl get -w) or PartialObjectMetadata; 406/400 before the stream.
  const encoder = watchEncoder(s.store.def, negotiateResponse(s.ctx.get('accept'), 'watch', { apiVersion: s.store.apiVersion, kind: s.store.def.kind }), s.ctx.querystring);
  const opts = parseListOptions(query, selectableFields(s));
  // Without timeoutSeconds a watch ends after a random time in [min, 2*min), as kube-apiserver.
  const timeoutSeconds = parseInteger(query.get('timeoutSeconds') ?? undefined, 'timeoutSeconds')
    ?? Math.floor(s.limits.minRequestTimeoutSeconds * (1 + Math.random()));
  const bookmarks = parseBool(query.get('allowWatchBookmarks') ?? undefined, 'allowWatchBookmarks');
  const sendInitial = query.has('sendInitialEvents') ? parseBool(query.get('sendInitialEvents') ?? undefined, 'sendInitialEvents') : undefined;
  const start = planWatch({ resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch, sendInitialEvents: sendInitial, allowWatchBookmarks: bookmarks });
  const store = s.store;
  const prefix = store.collectionPrefix(listNamespace(store, s.info.namespace, opts));

  // apiserver_watch_events_*, apiserver_registered_watchers: this stream's series, resolved once.
  const recorder = watchMetricsOf(store.storage)?.forKind(store.def.group, store.def.version, store.def.kind);
  const out = new WatchSink(recorder);
  const send = (ev: WatchEvent): boolean => (out.ended ? true : out.writeEvent(encoder.encode(ev)));
  // A change goes to many streams: streams of one representation share its encoding.
  const shareKey = encoder.shareKey;
  const memoKeys = { ADDED: `${shareKey}|ADDED`, MODIFIED: `${shareKey}|MODIFIED`, DELETED: `${shareKey}|DELETED` };
  const encodeShared = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: ApiObject): Buffer | string =>
    (shareKey !== undefined ? encodedOnce(object, memoKeys[type], () => encoder.encode({ type, object })) : encoder.encode({ type, object }));
  const output = (obj: ApiObject) => store.output(obj);
  // A version served over another's cache decodes (and batches) apart from the storage version's watchers.
  const servedAs = store.def.storageVersion ? store.apiVersion : undefined;
  const batchKey = servedAs ? `${servedAs}|${shareKey}` : `${shareKey}`;
  /** What one change means to this watch (selectors move objects in and out), encoded; undefined: nothing. */
  const sameForAllSelectors = !opts.labelSelector && !opts.fieldSelector;
  const eventBytes = (ev: StorageEvent): Buffer | string | undefined => {
    const d = decodeEvent(ev, output, servedAs);
    const next = d.next;
    const hasPrev = previousValueOf(ev) !== undefined;
    // Without selectors an update is MODIFIED whatever the previous object was: no decoding of it.
    const prev = hasPrev && (!next || !sameForAllSelectors) ? d.prev() : undefined;
    const wasIn = hasPrev && (prev ? matches(store, prev, opts) : true);
    const nowIn = next ? matches(store, next, opts) : false;
    if (next && nowIn) return encodeShared(wasIn ? 'MODIFIED' : 'ADDED', next);
    // Out of the selection (a pod moved off the node): DELETED with its previous content at the
    // change's resourceVersion, as Kubernetes' cache watcher sends it.
    if (prev && wasIn) return encodeShared('DELETED', prev);
    return undefined;
  };
  const sameForAll = shareKey !== undefined && !opts.labelSelector && !opts.fieldSelector;
  // A converted def (custom resources) converts each change to this watch's version, once for
  // all its watchers; its deliveries are handled in order, one after the other.
  const versioning = store.def.versioning;
  let chain: Promise<void> = Promise.resolve();
  const convertedBytes = async (ev: StorageEvent): Promise<Buffer | string | undefined> => {
    const c = decodeEventConverted(ev, versioning!, output);
    const next = await c.next();
    const hasPrev = previousValueOf(ev) !== undefined;
    // Without selectors an update is MODIFIED whatever the previous object was: no conversion of it.
    const prev = hasPrev && (!next || !sameForAllSelectors) ? await c.prev() : undefined;
    const wasIn = hasPrev && (prev ? matches(store, prev, opts) : true);
    const nowIn = next ? matches(store, next, opts) : false;
    if (next && nowIn) return encodeShared(wasIn ? 'MODIFIED' : 'ADDED', next);
    if (prev && wasIn) return encodeShared('DELETED', prev);
    return undefined;
  };
  const deliverConverted = async (events: StorageEvent[]): Promise<void> => {
    const parts: Array<Buffer | string> = [];
    let failure: unknown;
    for (const ev of events) {
      if (out.ended) return;
      try {
        const bytes = await convertedBytes(ev);
        if (bytes !== undefined) parts.push(bytes);
        lastRevision = Math.max(lastRevision, ev.revision);
      } catch (err) {
        failure = err;
        break;
      }
    }
    if (out.ended) return;
    const ok = !parts.length ? true : parts.length > 1 ? out.writeBatch(sizedBatch(parts)) : out.writeEvent(parts[0]);
    if (failure !== undefined) {
      // A change that cannot be converted ends the watch with its error, as a failed decode does.
      send({ type: 'ERROR', object: toApiError(failure).toStatus() });
      finish();
      return;
    }
    if (!ok && !finished) await out.drained();
  };
  let lastRevision = 0;
  /** A watch of one node's pods is sent only that node's changes; the cache tells how far the others went. */
  let progress: (() => number) | undefined;
  const seenRevision = () => (progress ? Math.max(lastRevision, progress()) : lastRevision);
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: String(seenRevision()) };
    if (annotations) metadata.annotations = annotations;
    send({ type: 'BOOKMARK', object: { kind: store.def.kind, apiVersion: store.apiVersion, metadata } });
  };

  let finished = false;
  let handle: WatchHandle | undefined;
  const timers: NodeJS.Timeout[] = [];
  const finish = () => {
    if (finished) return;
    finished = true;
    timers.forEach(clearTimeout);
    void handle?.close();
    out.end();
  };
  const endSlow = () => {
    if (finished) return;
    finished = true;
    timers.forEach(clearTimeout);
    void handle?.close();
    out.endSlow();
  };
  out.onSlow = endSlow;
  const handlers: WatchHandlers & { onEvents(events: StorageEvent[]): void | Promise<void> } = {
    onEvents: (events) => {
      if (out.ended) return undefined;
      if (versioning) return (chain = chain.then(() => deliverConverted(events)));
      // Without selectors every watcher of the representation writes the same bytes: made once.
      if (sameForAll && events.length > 1) {
        lastRevision = Math.max(lastRevision, events[events.length - 1].revision);
        const ok = out.writeBatch(encodedBatchOnce(events, batchKey, () => sizedBatch(events.map(eventBytes).filter((b) => b !== undefined))));
        return !ok && !finished ? out.drained() : undefined;
      }
      // One write per delivery: each write to a stream has a fixed cost, whatever its size.
      let first: Buffer | string | undefined;
      let more: Array<Buffer | string> | undefined;
      for (const ev of events) {
        lastRevision = Math.max(lastRevision, ev.revision);
        if (out.ended) continue;
        const bytes = eventBytes(ev);
        if (bytes === undefined) continue;
        if (first === undefined) first = bytes;
        else (more ??= [first]).push(bytes);
      }
      if (first === undefined || out.ended) return undefined;
      const ok = more ? out.writeBatch(sizedBatch(more)) : out.writeEvent(first);
      // Back-pressure: a slow client holds its own queue, never the others'.
      if (!ok && !finished) return out.drained();
      return undefined;
    },
    onProgress: (r) => {
      // Behind converted changes still on their way: a bookmark must not run ahead of them.
      if (versioning) chain = chain.then(() => { lastRevision = Math.max(lastRevision, r); });
      else lastRevision = Math.max(lastRevision, r);
    },
    onError: (err) => {
      if (finished) return;
      const slow = err instanceof StorageError && err.code === 'Internal';
      if (err instanceof StorageError && err.code === 'Compacted') send({ type: 'ERROR', object: tooOld(seenRevision(), err.compactRevision).toStatus() });
      else if (!slow) send({ type: 'ERROR', object: toApiError(err).toStatus() });
      // A watcher closed for falling behind just ends: the client resumes from its last version.
      if (slow) endSlow();
      else finish();
    },
  };
  const sendInitialState = (kvs: KeyValue[], revision: number) => {
    for (const kv of kvs) {
      const obj = output(decodeFromStorage(kv.value, kv.modRevision));
      if (matches(store, obj, opts)) send({ type: 'ADDED', object: obj });
    }
    lastRevision = revision;
    if (sendInitial) bookmark({ [s.initialEventsAnnotation]: 'true' });
  };

  const sendInitialConverted = async (kvs: KeyValue[], revision: number): Promise<void> => {
    for (const obj of await store.outputKvs(kvs, true)) {
      if (matches(store, obj, opts)) send({ type: 'ADDED', object: obj });
    }
    lastRevision = revision;
    if (sendInitial) bookmark({ [s.initialEventsAnnotation]: 'true' });
  };

  const cache = store.deps.cache?.ready ? store.deps.cache : undefined;
  if (cache) {
    const indexValue = indexValueFor(store, opts);
    try {
      if (start.kind === 'initialState') {
        await ensureCacheState(cache, start.plan);
        const w = cache.watchWithInitialState(prefix, handlers, indexValue);
        handle = w.handle;
        progress = w.handle.progress;
        if (versioning) {
          // Changes arriving meanwhile wait for the initial state (chain); a failed conversion is a 500.
          const initial = sendInitialConverted(w.initial, w.revision);
          chain = initial.catch(() => undefined);
          try {
            await initial;
          } catch (err) {
            void handle.close();
            throw err;
          }
        } else sendInitialState(w.initial, w.revision);
      } else {
        if (start.revision > cache.revision && !(await cache.waitForRevision(start.revision, TOO_LARGE_WAIT_MS))) {
          throw tooLarge(start.revision, cache.revision);
        }
        lastRevision = start.revision;
        // As kube-apiserver's cacher: a start the ring covers is served from it even when etcd has
        // compacted past it since (the ring holds every change after its start); only a start
        // older than the ring is 410. Clients resuming after their watch's timeout (informers,
        // every 5-10 minutes) therefore do not re-list at every compaction.
        const h = cache.watch(prefix, start.revision, handlers, indexValue);
        handle = h;
        progress = h.progress;
      }
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') throw tooOld(start.kind === 'after' ? start.revision : 0, err.compactRevision);
      throw err;
    }
  } else {
    let revision: number;
    if (start.kind === 'initialState') {
      const source = await openReadSource(store.storage, undefined, start.plan);
      const res = await source.range(prefix, {});
      revision = source.revision;
      if (versioning) await sendInitialConverted(res.kvs, revision);
      else sendInitialState(res.kvs, revision);
    } else {
      revision = start.revision;
      lastRevision = revision;
      // A start the store no longer has is answered 410 before the stream begins.
      const probe = await openReadSource(store.storage, undefined, { kind: 'exact', revision });
      await probe.range(prefix, { limit: 1 });
    }
    handle = await store.storage.watch(prefix, revision, handlers);
  }

  /**
   * A periodic bookmark. A watch that has taken every change says the cache's revision: first
   * brought up to etcd's (one check shared by the watches asking together), so that a client
   * resuming from an idle resource does not start behind every write to the others.
   */
  const timedBookmark = async (): Promise<void> => {
    if (cache && progress?.()) await cache.consistentRevision();
    bookmark();
  };
  s.ctx.req.on('close', finish);
  timers.push(setTimeout(() => { if (bookmarks) void timedBookmark().finally(finish); else finish(); }, timeoutSeconds * 1000));
  if (bookmarks) timers.push(setInterval(() => void timedBookmark(), BOOKMARK_INTERVAL_MS));

  // The stream is written straight to the response (no pipe per event); the headers go now:
  // clients (kubectl wait, delete) block until the watch request returns.
  s.ctx.status = 200;
  s.ctx.respond = false;
  s.ctx.res.writeHead(200, { 'Content-Type': encoder.contentType, 'Cache-Control': 'no-cache, private' });
  s.ctx.res.flushHeaders();
  out.start(s.ctx.res);
  registerWatch(s.ctx.app, s.ctx.res, finish);
}

/** How long a watch ended for falling behind may take to flush before its stream is cut. */
const SLOW_END_GRACE_MS = 5_000;
/**
 * Bytes a watch may have written that its client has not taken, checked before each write. The
 * watch cache waits for 'drain' before its next delivery, so only a client that stops reading
 * gets here (or a watch straight on etcd, which does not wait): it is ended, not buffered for.
 */
export const WATCH_MAX_PENDING_BYTES = 8 << 20;

interface OpenWatch {
  res: Response;
  /** Writes nothing more and ends the response (HTTP/2 END_STREAM, HTTP/1.1 the last chunk). */
  finish(): void;
}

/** The open watches of each server, keyed by its Koa application, so that a shutdown ends them. */
const openWatches = new WeakMap<object, { watches: Set<OpenWatch>; ending: boolean }>();

function registerWatch(app: object, res: Response, finish: () => void): void {
  let entry = openWatches.get(app);
  if (!entry) openWatches.set(app, entry = { watches: new Set(), ending: false });
  // A watch that starts while the server ends its watches ends at once.
  if (entry.ending) return finish();
  if (res.writableFinished || res.destroyed) return;
  const w: OpenWatch = { res, finish };
  entry.watches.add(w);
  res.once('close', () => entry!.watches.delete(w));
}

/**
 * Shutdown: ends every open watch of `app` cleanly, then waits up to `graceMs` for their last
 * bytes to reach the clients; a stream still not done then (a client that stopped reading) is
 * cut. Watches that start afterwards end at once. Resolves with how many ended and how many were cut.
 */
export async function endWatches(app: object, graceMs: number): Promise<{ ended: number; cut: number }> {
  let entry = openWatches.get(app);
  if (!entry) openWatches.set(app, entry = { watches: new Set(), ending: true });
  entry.ending = true;
  const open = [...entry.watches];
  const done = open.map((w) => new Promise<void>((resolve) => {
    if (w.res.destroyed || w.res.writableFinished) return resolve();
    w.res.once('close', () => resolve());
    w.res.once('finish', () => resolve());
  }));
  for (const w of open) w.finish();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(done), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
  clearTimeout(timer);
  let cut = 0;
  for (const w of open) {
    if (!w.res.destroyed && !w.res.writableFinished) {
      cut++;
      w.res.destroy();
    }
  }
  return { ended: open.length, cut };
}

/** The byte lengths of the events a delivery's bytes are made of (apiserver_watch_events_sizes). */
const batchSizes = new WeakMap<Buffer, number[]>();

/** Several encoded events as one write, remembering each one's size. */
function sizedBatch(parts: Array<Buffer | string>): Buffer {
  const bufs = parts.map((b) => (typeof b === 'string' ? Buffer.from(b) : b));
  const bytes = Buffer.concat(bufs);
  batchSizes.set(bytes, bufs.map((b) => b.length));
  return bytes;
}

type Response = ResourceScope['ctx']['res'];

/**
 * Where a watch writes: buffered until the response starts (the initial events come first, and
 * an error before the start is still an HTTP error), then straight into the response.
 */
class WatchSink {
  private res?: Response;
  private buffered: Buffer[] = [];
  ended = false;
  private registered = false;

  /** `recorder`: where the events sent and the open stream are counted (absent: not measured). */
  constructor(private readonly recorder?: WatchRecorder) {}

  /** One encoded event. */
  writeEvent(chunk: string | Buffer): boolean {
    if (this.ended) return true;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.recorder) {
      this.recorder.events.inc();
      this.recorder.sizes.observe(bytes.length);
    }
    return this.write(bytes);
  }

  /** Several encoded events in one write (sizedBatch). */
  writeBatch(bytes: Buffer): boolean {
    if (this.ended) return true;
    const sizes = batchSizes.get(bytes);
    if (this.recorder && sizes) {
      this.recorder.events.inc(sizes.length);
      for (const n of sizes) this.recorder.sizes.observe(n);
    }
    return this.write(bytes);
  }

  write(chunk: string | Buffer): boolean {
    if (this.ended) return true;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!this.res) {
      this.buffered.push(bytes);
      return true;
    }
    if (this.res.writableLength > WATCH_MAX_PENDING_BYTES) {
      // The client stopped reading: end its watch instead of buffering for it.
      this.onSlow?.();
      return true;
    }
    return this.res.write(bytes);
  }

  /** Called (once the stream is open) when the client has left too many bytes unread. */
  onSlow?: () => void;

  /**
   * Ends a watch whose client fell behind: the stream ends as any other, and is cut if the
   * client has not taken its last bytes within SLOW_END_GRACE_MS, so nothing is held for it.
   */
  endSlow(): void {
    const res = this.res;
    this.end();
    if (!res || res.destroyed || res.writableFinished) return;
    const timer = setTimeout(() => { if (!res.destroyed && !res.writableFinished) res.destroy(); }, SLOW_END_GRACE_MS);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
  }

  /** The stream is open: it counts as a registered watcher until it ends. */
  start(res: Response): void {
    this.res = res;
    if (!this.ended && this.recorder) {
      this.registered = true;
      this.recorder.watchers.inc();
    }
    for (const bytes of this.buffered) res.write(bytes);
    this.buffered = [];
    if (this.ended) res.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.registered) this.recorder!.watchers.dec();
    this.registered = false;
    this.res?.end();
  }

  /** Resolves when the response can take more, or is gone. */
  drained(): Promise<void> {
    const res = this.res;
    if (!res) return Promise.resolve();
    return drainedOrClosed(res);
  }
}

/** Brings the cache to the state a watch's initial events must show (consistent, or not older than N). */
async function ensureCacheState(cache: NonNullable<ResourceScope['store']['deps']['cache']>, plan: ReadPlan): Promise<void> {
  if (plan.kind === 'consistent') await cache.consistentRevision();
  else if (plan.kind === 'notOlderThan' && !(await cache.waitForRevision(plan.revision, TOO_LARGE_WAIT_MS))) {
    throw tooLarge(plan.revision, cache.revision);
  }
}
