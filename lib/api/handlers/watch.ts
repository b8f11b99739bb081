/**
 * GET with `watch`: a stream of JSON watch events, one document per line, from one etcd watch.
 * Start per the spec's table: unset/0 send the current state as ADDED first; a version streams
 * the changes after it. Selectors follow objects in (ADDED) and out (DELETED) of the selection.
 */
import { PassThrough } from 'node:stream';
import { ResourceScope } from './scope';
import { parseBool, parseInteger, parseListOptions } from '../query';
import { selectableFields } from './list';
import { list, matches } from '../../registry/list';
import { decodeFromStorage } from '../../scheme/storage-codec';
import { ApiObject } from '../../scheme/types';
import { StorageEvent } from '../../storage/interfaces';
import { errors } from '../../meta/api-errors';
import { StorageError } from '../../storage/errors';
import { toApiError } from '../response-writer';

export interface WatchEvent { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: unknown }

/** How often a bookmark is sent to watchers that asked for them. */
const BOOKMARK_INTERVAL_MS = 60_000;

export async function handleWatch(s: ResourceScope): Promise<void> {
  const query = new URLSearchParams(s.ctx.querystring);
  const opts = parseListOptions(query, selectableFields(s));
  const timeoutSeconds = parseInteger(query.get('timeoutSeconds') ?? undefined, 'timeoutSeconds')
        // Without timeoutSeconds a watch ends after a random time in [min, 2*min), as kube-apiserver.
    ?? Math.floor(s.limits.minRequestTimeoutSeconds * (1 + Math.random()));
  const bookmarks = parseBool(query.get('allowWatchBookmarks') ?? undefined, 'allowWatchBookmarks');
  const store = s.store;
  const rv = opts.resourceVersion;
  if (rv && rv !== '0' && !/^\d+$/.test(rv)) throw errors.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: must be a number`);

  let initial: ApiObject[] = [];
  let revision: number;
  if (!rv || rv === '0') {
    const snapshot = await list(store, s.info.namespace, { ...opts, limit: undefined, continue: undefined });
    initial = snapshot.items;
    revision = Number(snapshot.resourceVersion);
  } else {
    revision = Number(rv);
  }

  const out = new PassThrough();
  const send = (ev: WatchEvent) => { if (!out.writableEnded) out.write(`${JSON.stringify(ev)}\n`); };
  const output = (obj: ApiObject) => store.output(obj);
  let lastRevision = revision;

  const onEvents = (events: StorageEvent[]) => {
    for (const ev of events) {
      const next = ev.type === 'put' ? output(decodeFromStorage(ev.value, ev.revision)) : undefined;
      const prevRaw = ev.type === 'delete' ? ev.value : ev.prevValue;
      const prev = prevRaw && prevRaw.length ? output(decodeFromStorage(prevRaw, ev.revision)) : undefined;
      const nowIn = next ? matches(store, next, opts) : false;
      const wasIn = prev ? matches(store, prev, opts) : false;
      if (next && nowIn) send({ type: wasIn ? 'MODIFIED' : 'ADDED', object: next });
      else if (next && wasIn) send({ type: 'DELETED', object: next });
      else if (!next && prev && wasIn) send({ type: 'DELETED', object: prev });
      lastRevision = ev.revision;
    }
  };
  const bookmark = () => {
    if (bookmarks) send({ type: 'BOOKMARK', object: { kind: store.def.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: String(lastRevision) } } });
  };

  // The current state goes first; the PassThrough buffers it until the response starts.
  for (const obj of initial) send({ type: 'ADDED', object: obj });
  let finished = false;
  const timers: NodeJS.Timeout[] = [];
  const handle = await store.storage.watch(store.collectionPrefix(s.info.namespace), revision, {
    onEvents,
    onProgress: (r) => { lastRevision = Math.max(lastRevision, r); },
    onError: (err) => {
      const e = err instanceof StorageError && err.code === 'Compacted'
        ? errors.expired(`too old resource version: ${revision} (${err.compactRevision ?? 'compacted'})`)
        : toApiError(err);
      send({ type: 'ERROR', object: e.toStatus() });
      finish();
    },
  });

  function finish() {
    if (finished) return;
    finished = true;
    timers.forEach(clearTimeout);
    void handle.close();
    out.end();
  }

  s.ctx.req.on('close', finish);
  timers.push(setTimeout(() => { bookmark(); finish(); }, timeoutSeconds * 1000));
  if (bookmarks) timers.push(setInterval(bookmark, BOOKMARK_INTERVAL_MS));

  s.ctx.status = 200;
  s.ctx.type = 'application/json';
  s.ctx.set('Cache-Control', 'no-cache, private');
  s.ctx.body = out;
  // Headers go out now, not with the first event, as kube-apiserver flushes them: a client's watch
  // call returns only on headers, and kubectl's `delete --wait` cannot stop its informer before.
  s.ctx.res.flushHeaders();
}
