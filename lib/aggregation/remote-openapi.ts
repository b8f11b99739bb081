/**
 * The OpenAPI documents of extension API servers, merged into this server's own (the
 * RemoteOpenApiSource lib/api/openapi reads), as kube-aggregator 1.32's OpenAPI controllers
 * (pkg/controllers/openapi, pkg/controllers/openapiv3) keep them:
 *  - v2: each APIService's backend is asked for `/openapi/v2` (If-None-Match with the last ETag;
 *    304 keeps the document) as system:aggregator in the front-proxy headers; the document is cut
 *    down to the paths under `/apis/<group>/<version>/` and what they refer to, and the last
 *    document fetched is kept while the backend fails or its APIService is unavailable (kube's
 *    LastSuccess). lib/api/openapi/remote.ts merges them in priority order;
 *  - v3: the backend's `/openapi/v3` index (fetched as system:aggregator, kube's Downloader
 *    OpenAPIV3Root) gives the URL (with its hash) of its group-version's document, listed in this
 *    server's index. A request for that document is the caller's request forwarded to the backend
 *    by the APIService's proxy (./proxy.ts), as kube's specProxier.handleGroupVersion hands the
 *    request to the APIService's proxyHandler: the caller's identity in the front-proxy headers,
 *    the caller's headers (Accept, If-None-Match) and query, the backend's answer as it comes, 503
 *    `service unavailable` while the APIService is unavailable. Nothing of it is cached here (kube
 *    caches none: a hashed URL's `Cache-Control: public, immutable` lets clients cache it), so the
 *    backend authorizes every caller. A backend without `/openapi/v3` (404) gets its v2 document
 *    converted and served from here under its own hash (kube's openapiv2converter);
 *  - fetched again when the APIService changes, after a failure with a growing delay, and every
 *    minute (./refresh.ts).
 */
import type { Json } from '../api/openapi/schema-writer';
import type { Context } from 'koa';
import { convertV2ToV3, filterByPaths, RemoteOpenApiSource } from '../api/openapi/remote';
import { servedDocument, ServedDocument } from '../api/openapi/documents';
import { type ApiService, isAvailable, isLocal, sortedByGroupAndVersion } from './api-service';
import type { AggregationContext } from './context';
import type { ApiServiceForwarder } from './proxy';
import { every } from './refresh';
import { WorkQueue } from '../controllers/work-queue';

/** The identity the v2 documents and the v3 index are fetched with (kube-aggregator's OpenAPI downloaders). */
const OPENAPI_USER = { 'x-remote-user': 'system:aggregator' };
const FETCH_TIMEOUT_MS = 60_000;
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

interface SpecState {
  svc: ApiService;
  v2?: Json;
  v2Etag?: string;
  /** `apis/<group>/<version>` -> serverRelativeURL, from the backend's v3 index. */
  v3?: Map<string, string>;
  /** The v2 document converted, for a backend that serves no v3 (404). */
  legacyV3?: ServedDocument;
}

export class RemoteOpenApi implements RemoteOpenApiSource {
  private readonly specs = new Map<string, SpecState>();
  private v2Snapshot?: readonly Json[];
  private v3Snapshot?: ReadonlyMap<string, string>;
  private readonly queue: WorkQueue;
  private stopRefresh?: () => void;
  private readonly listeners: Array<() => void> = [];

  constructor(readonly agg: AggregationContext, private readonly forward: ApiServiceForwarder) {
    // A sync that resolves false (a fetch failed) is retried with backoff, from 0.5 s to 30 s.
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 2, baseDelayMs: 500, maxDelayMs: 30_000,
      onError: (name, err) => agg.log.warn('aggregated OpenAPI: sync failed', { apiservice: name, err: (err as Error).message }),
    });
  }

  async start(): Promise<void> {
    this.agg.cache.onChange((name) => this.queue.add(name));
    this.refreshAll();
    this.stopRefresh = every(() => this.refreshAll());
  }

  async stop(): Promise<void> {
    this.stopRefresh?.();
    await this.queue.stop(1000);
  }

  refreshAll(): void {
    for (const svc of this.agg.cache.list()) if (!isLocal(svc)) this.queue.add(svc.metadata?.name ?? '');
  }

  /** Resolves when no fetch is queued or running (tests). */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  v2Documents(): readonly Json[] {
    if (!this.v2Snapshot) {
      const states = sortedByGroupAndVersion([...this.specs.values()].map((s) => s.svc)).flat()
        .map((svc) => this.specs.get(svc.metadata?.name ?? ''));
      this.v2Snapshot = states.flatMap((s) => (s?.v2 ? [s.v2] : []));
    }
    return this.v2Snapshot;
  }

  v3Paths(): ReadonlyMap<string, string> {
    if (!this.v3Snapshot) {
      const paths = new Map<string, string>();
      for (const s of this.specs.values()) for (const [k, url] of s.v3 ?? []) paths.set(k, url);
      this.v3Snapshot = paths;
    }
    return this.v3Snapshot;
  }

  v3Converted(key: string): ServedDocument | undefined {
    return [...this.specs.values()].find((s) => s.v3?.has(key))?.legacyV3;
  }

  async proxyV3Document(key: string, ctx: Context): Promise<boolean> {
    const state = [...this.specs.values()].find((s) => s.v3?.has(key));
    if (!state) return false;
    await this.forward(ctx, this.agg.cache.get(state.svc.metadata?.name ?? '') ?? state.svc);
    return true;
  }

  /** Calls `listener` after every change of the documents (their v2 documents or v3 index entries). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    this.v2Snapshot = undefined;
    this.v3Snapshot = undefined;
    for (const l of this.listeners) l();
  }

  private async sync(name: string): Promise<boolean> {
    const svc = this.agg.cache.get(name);
    if (!svc || isLocal(svc)) {
      if (this.specs.delete(name)) this.changed();
      return true;
    }
    const state = this.specs.get(name) ?? { svc };
    if (state.svc !== svc && (state.svc.spec?.group !== svc.spec?.group || state.svc.spec?.version !== svc.spec?.version)) {
      // Another group-version: what was fetched for the old one no longer applies.
      state.v2 = state.v2Etag = state.v3 = undefined;
    }
    if (state.svc !== svc || !this.specs.has(name)) this.changed();
    state.svc = svc;
    this.specs.set(name, state);
    // Fetched through kube's proxy, an unavailable APIService answers 503: the last documents stay.
    if (!isAvailable(svc)) return true;
    const v2ok = await this.fetchV2(svc, state);
    const v3ok = await this.fetchV3(svc, state);
    return v2ok && v3ok;
  }

  private async fetchV2(svc: ApiService, state: SpecState): Promise<boolean> {
    const headers: Record<string, string> = { accept: 'application/json', ...OPENAPI_USER };
    if (state.v2Etag && state.v2) headers['if-none-match'] = state.v2Etag;
    try {
      const answer = await this.agg.transport.fetch(svc, { path: '/openapi/v2', headers, timeoutMs: FETCH_TIMEOUT_MS }, MAX_DOCUMENT_BYTES);
      if (answer.status === 304) return true;
      if (answer.status === 404) {
        // No document served: nothing of it is merged (kube's downloader treats 404 as none).
        if (state.v2) { state.v2 = state.v2Etag = undefined; this.changed(); }
        return true;
      }
      if (answer.status !== 200) throw new Error(`failed to retrieve openAPI spec, http error: ResponseCode: ${answer.status}`);
      const doc: unknown = JSON.parse(answer.body.toString('utf8'));
      if (!isObj(doc)) throw new Error('the OpenAPI v2 document is not an object');
      const { group, version } = svc.spec;
      state.v2 = filterByPaths(doc, [`/apis/${group ?? ''}/${version ?? ''}/`]);
      state.v2Etag = typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined;
      this.changed();
      return true;
    } catch (err) {
      this.agg.log.debug('aggregated OpenAPI: v2 fetch failed', { apiservice: svc.metadata?.name, err: (err as Error).message });
      return false;
    }
  }

  private async fetchV3(svc: ApiService, state: SpecState): Promise<boolean> {
    try {
      const answer = await this.agg.transport.fetch(svc, {
        path: '/openapi/v3', headers: { accept: 'application/json', ...OPENAPI_USER }, timeoutMs: FETCH_TIMEOUT_MS,
      }, MAX_DOCUMENT_BYTES);
      const own = `apis/${svc.spec.group ?? ''}/${svc.spec.version ?? ''}`;
      if (answer.status === 404) {
        const legacy = state.v2 ? servedDocument(convertV2ToV3(state.v2)) : undefined;
        if (legacy?.hash !== state.legacyV3?.hash) {
          state.legacyV3 = legacy;
          state.v3 = legacy ? new Map([[own, `/openapi/v3/${own}?hash=${legacy.hash}`]]) : undefined;
          this.changed();
        }
        return true;
      }
      if (state.legacyV3) { state.legacyV3 = undefined; this.changed(); }
      if (answer.status !== 200) throw new Error(`failed to retrieve the OpenAPI v3 index, http error: ResponseCode: ${answer.status}`);
      const doc: unknown = JSON.parse(answer.body.toString('utf8'));
      const paths = isObj(doc) && isObj(doc.paths) ? doc.paths : {};
      const v3 = new Map<string, string>();
      const entry = paths[own];
      if (isObj(entry) && typeof entry.serverRelativeURL === 'string' && entry.serverRelativeURL.startsWith(`/openapi/v3/${own}`)) {
        v3.set(own, entry.serverRelativeURL);
      }
      const before = state.v3?.get(own);
      if (before !== v3.get(own) || !state.v3) {
        state.v3 = v3;
        this.changed();
      }
      return true;
    } catch (err) {
      this.agg.log.debug('aggregated OpenAPI: v3 index fetch failed', { apiservice: svc.metadata?.name, err: (err as Error).message });
      return false;
    }
  }
}
