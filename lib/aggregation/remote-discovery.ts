/**
 * Discovery of the groups served by extension API servers, merged into this server's own (the
 * RemoteDiscoverySource lib/api/discovery.ts reads), as kube-aggregator 1.32's discovery manager
 * (pkg/apiserver/handler_discovery.go) keeps it:
 *  - every APIService with a service is listed (legacy `/apis`, `/apis/<group>`), available or not;
 *  - for the aggregated document, each such APIService's backend is asked for `/apis` with the
 *    aggregated Accept (v2, v2beta1) and If-None-Match with the last ETag, as
 *    system:kube-aggregator (group system:masters) in the front-proxy headers; a backend that
 *    answers anything but 200 with an aggregated Content-Type, 304 or 503 is asked for its legacy
 *    `/apis/<group>/<version>`, which is converted. Answers are cached per service
 *    (namespace/name/port) and reused while newer than the APIService's last change;
 *  - an APIService that is not Available (kube's proxy answers 503 for it) or whose fetch fails is
 *    kept with no resources, marked Stale (kubectl then reports the group-version as failed);
 *  - refetched when the APIService changes, on failure with a growing delay, and every minute.
 */
import type { APIResourceDiscovery, APISubresourceDiscovery, APIVersionDiscovery, RemoteDiscoverySource, RemoteGroup } from '../api/discovery';
import { type ApiService, isAvailable, isLocal, sortedByGroupAndVersion } from './api-service';
import type { AggregationContext } from './context';
import { every } from './refresh';
import { WorkQueue } from '../controllers/work-queue';

const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,'
  + 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** The identity discovery is fetched with (kube-aggregator's discovery manager). */
const DISCOVERY_USER = { 'x-remote-user': 'system:kube-aggregator', 'x-remote-group': 'system:masters' };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

interface CachedResult {
  /** `<group>/<version>` -> its discovery. */
  discovery: Map<string, APIVersionDiscovery>;
  etag?: string;
  /** The sequence number taken before the request was sent. */
  fetchedAt: number;
}

/** `application/json;g=apidiscovery.k8s.io;v=v2|v2beta1;as=APIGroupDiscoveryList`. */
export function isAggregatedDiscoveryType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type, ...params] = contentType.split(';').map((p) => p.trim());
  if (type.toLowerCase() !== 'application/json') return false;
  const p: Record<string, string> = {};
  for (const kv of params) {
    const eq = kv.indexOf('=');
    if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
  }
  return p.g === 'apidiscovery.k8s.io' && (p.v === 'v2' || p.v === 'v2beta1') && p.as === 'APIGroupDiscoveryList';
}

function gvKey(group: string, version: string): string {
  return `${group}/${version}`;
}

function kindOf(v: unknown, group: string, version: string): { group: string; version: string; kind: string } {
  const o = isObj(v) ? v : {};
  return {
    group: typeof o.group === 'string' ? o.group : group,
    version: typeof o.version === 'string' ? o.version : version,
    kind: typeof o.kind === 'string' ? o.kind : '',
  };
}

/** One version of an aggregated document, with only the fields of apidiscovery v2 and their types. */
function versionFrom(group: string, v: Obj): APIVersionDiscovery | undefined {
  if (typeof v.version !== 'string' || !v.version) return undefined;
  const version = v.version;
  const resources: APIResourceDiscovery[] = [];
  for (const r of Array.isArray(v.resources) ? v.resources : []) {
    if (!isObj(r) || typeof r.resource !== 'string') continue;
    const entry: APIResourceDiscovery = {
      resource: r.resource,
      responseKind: kindOf(r.responseKind, group, version),
      scope: r.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
      singularResource: typeof r.singularResource === 'string' ? r.singularResource : '',
      verbs: strings(r.verbs),
    };
    if (strings(r.shortNames).length) entry.shortNames = strings(r.shortNames);
    if (strings(r.categories).length) entry.categories = strings(r.categories);
    const subs: APISubresourceDiscovery[] = [];
    for (const s of Array.isArray(r.subresources) ? r.subresources : []) {
      if (!isObj(s) || typeof s.subresource !== 'string') continue;
      subs.push({ subresource: s.subresource, responseKind: kindOf(s.responseKind, group, version), verbs: strings(s.verbs) });
    }
    if (subs.length) entry.subresources = subs;
    resources.push(entry);
  }
  return { version, resources, freshness: 'Current' };
}

/** An aggregated APIGroupDiscoveryList (v2 or v2beta1) as a map of its group-versions. */
export function parseAggregated(body: Buffer): Map<string, APIVersionDiscovery> {
  const doc: unknown = JSON.parse(body.toString('utf8'));
  const out = new Map<string, APIVersionDiscovery>();
  const items = isObj(doc) && Array.isArray(doc.items) ? doc.items : [];
  for (const g of items) {
    if (!isObj(g)) continue;
    const name = isObj(g.metadata) && typeof g.metadata.name === 'string' ? g.metadata.name : '';
    for (const v of Array.isArray(g.versions) ? g.versions : []) {
      const entry = isObj(v) ? versionFrom(name, v) : undefined;
      if (entry) out.set(gvKey(name, entry.version), entry);
    }
  }
  return out;
}

/**
 * A legacy APIResourceList converted to aggregated discovery (apiserver's
 * ConvertGroupVersionIntoToDiscovery): resources sorted by name, each `<resource>/<sub>` entry made
 * a subresource of its parent.
 */
export function convertLegacy(group: string, version: string, body: Buffer): APIVersionDiscovery {
  const doc: unknown = JSON.parse(body.toString('utf8'));
  const list = isObj(doc) && Array.isArray(doc.resources) ? doc.resources.filter(isObj) : [];
  const parents = new Map<string, APIResourceDiscovery>();
  const kind = (r: Obj) => ({
    group: typeof r.group === 'string' ? r.group : group,
    version: typeof r.version === 'string' ? r.version : version,
    kind: typeof r.kind === 'string' ? r.kind : '',
  });
  for (const r of list) {
    if (typeof r.name !== 'string' || !r.name || r.name.includes('/')) continue;
    const entry: APIResourceDiscovery = {
      resource: r.name, responseKind: kind(r), scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: typeof r.singularName === 'string' ? r.singularName : '', verbs: strings(r.verbs),
    };
    if (strings(r.shortNames).length) entry.shortNames = strings(r.shortNames);
    if (strings(r.categories).length) entry.categories = strings(r.categories);
    parents.set(r.name, entry);
  }
  for (const r of list) {
    if (typeof r.name !== 'string' || !r.name.includes('/')) continue;
    const [parent, sub] = r.name.split('/', 2);
    const p = parents.get(parent);
    if (!p || !sub) continue;
    (p.subresources ??= []).push({ subresource: sub, responseKind: kind(r), verbs: strings(r.verbs) });
  }
  const resources = [...parents.values()].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  return { version, resources, freshness: 'Current' };
}

export class RemoteDiscovery implements RemoteDiscoverySource {
  /** APIService name -> the sequence number of its last change (or refresh). */
  private readonly dirtyAt = new Map<string, number>();
  /** Service key -> what its backend last answered. */
  private readonly results = new Map<string, CachedResult>();
  /** APIService name -> its entry in the aggregated document. */
  private readonly entries = new Map<string, APIVersionDiscovery>();
  private seq = 0;
  private snapshot?: { services: readonly ApiService[]; groups: RemoteGroup[] };
  private readonly queue: WorkQueue;
  private stopRefresh?: () => void;

  constructor(readonly agg: AggregationContext) {
    // A sync that resolves false (a fetch failed) is retried with backoff, from 0.5 s to 30 s.
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 2, baseDelayMs: 500, maxDelayMs: 30_000,
      onError: (name, err) => agg.log.warn('aggregated discovery: sync failed', { apiservice: name, err: (err as Error).message }),
    });
  }

  async start(): Promise<void> {
    this.agg.cache.onChange((name) => {
      this.dirtyAt.set(name, ++this.seq);
      this.snapshot = undefined;
      this.queue.add(name);
    });
    for (const svc of this.agg.cache.list()) {
      const name = svc.metadata?.name ?? '';
      this.dirtyAt.set(name, ++this.seq);
      this.queue.add(name);
    }
    this.stopRefresh = every(() => this.refreshAll());
    // As kube-apiserver's readiness waits for the first discovery sync; bounded by the fetch timeouts.
    await Promise.race([this.queue.settled(), new Promise((r) => setTimeout(r, FETCH_TIMEOUT_MS).unref())]);
  }

  async stop(): Promise<void> {
    this.stopRefresh?.();
    await this.queue.stop(1000);
  }

  /** Marks every remote APIService dirty (the periodic refresh). */
  refreshAll(): void {
    for (const svc of this.agg.cache.list()) {
      if (isLocal(svc)) continue;
      const name = svc.metadata?.name ?? '';
      this.dirtyAt.set(name, ++this.seq);
      this.queue.add(name);
    }
  }

  /** Resolves when no sync is queued or running (tests, start). */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  groups(): readonly RemoteGroup[] {
    const services = this.agg.cache.list();
    if (this.snapshot?.services === services) return this.snapshot.groups;
    const remote = services.filter((s) => !isLocal(s) && s.spec?.group);
    const groups = sortedByGroupAndVersion(remote).map((list): RemoteGroup => ({
      name: list[0].spec.group ?? '',
      priority: Math.max(...list.map((s) => s.spec?.groupPriorityMinimum ?? 0)),
      versions: list.map((s) => s.spec.version ?? ''),
      discovery: list.flatMap((s) => {
        const e = this.entries.get(s.metadata?.name ?? '');
        return e ? [e] : [];
      }),
    }));
    this.snapshot = { services, groups };
    return groups;
  }

  private setEntry(name: string, entry: APIVersionDiscovery | undefined): void {
    const old = this.entries.get(name);
    if (entry === undefined ? old === undefined : old !== undefined && JSON.stringify(old) === JSON.stringify(entry)) return;
    if (entry) this.entries.set(name, entry);
    else this.entries.delete(name);
    this.snapshot = undefined;
  }

  private async sync(name: string): Promise<boolean> {
    const svc = this.agg.cache.get(name);
    if (!svc || isLocal(svc)) {
      this.setEntry(name, undefined);
      this.dirtyAt.delete(name);
      this.dropUnusedResults();
      return true;
    }
    const group = svc.spec.group ?? '';
    const version = svc.spec.version ?? '';
    let result: CachedResult | undefined;
    let failed: unknown;
    try {
      result = await this.fetchFresh(svc, group, version);
    } catch (err) {
      failed = err;
    }
    const found = result?.discovery.get(gvKey(group, version));
    const entry: APIVersionDiscovery = found
      ? { ...found, freshness: failed ? 'Stale' : 'Current' }
      : { version, resources: [], freshness: failed ? 'Stale' : 'Current' };
    // The APIService may have changed while its backend was asked: only a current one is kept.
    if (this.agg.cache.get(name) === svc) this.setEntry(name, entry);
    if (failed) this.agg.log.debug('aggregated discovery: fetch failed', { apiservice: name, err: (failed as Error).message });
    return !failed;
  }

  private serviceKey(svc: ApiService): string {
    const ref = svc.spec.service ?? {};
    return `${ref.namespace ?? ''}/${ref.name ?? ''}:${ref.port ?? 443}`;
  }

  private dropUnusedResults(): void {
    const used = new Set(this.agg.cache.list().filter((s) => !isLocal(s)).map((s) => this.serviceKey(s)));
    for (const key of this.results.keys()) if (!used.has(key)) this.results.delete(key);
  }

  private async fetchFresh(svc: ApiService, group: string, version: string): Promise<CachedResult> {
    const key = this.serviceKey(svc);
    const cached = this.results.get(key);
    const dirtyAt = this.dirtyAt.get(svc.metadata?.name ?? '') ?? 0;
    if (cached && cached.fetchedAt > dirtyAt) return cached;
    // kube-aggregator fetches through its proxy, which answers 503 for an unavailable APIService.
    if (!isAvailable(svc)) throw new Error(`service ${key} returned non-success response code: 503`);
    const fetchedAt = ++this.seq;
    const headers: Record<string, string> = { accept: AGGREGATED_ACCEPT, ...DISCOVERY_USER };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    const answer = await this.agg.transport.fetch(svc, { path: '/apis', headers, timeoutMs: FETCH_TIMEOUT_MS }, MAX_DOCUMENT_BYTES);
    if (answer.status === 304 && cached) {
      const kept = { ...cached, fetchedAt };
      this.results.set(key, kept);
      return kept;
    }
    if (answer.status === 503) throw new Error(`service ${key} returned non-success response code: 503`);
    if (answer.status === 200 && isAggregatedDiscoveryType(answer.headers['content-type'])) {
      const etag = typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined;
      const result: CachedResult = { discovery: parseAggregated(answer.body), etag, fetchedAt };
      this.results.set(key, result);
      return result;
    }
    // The backend does not serve aggregated discovery: its legacy document of this group-version.
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const legacy = await this.agg.transport.fetch(svc, {
      path, headers: { accept: 'application/json', ...DISCOVERY_USER }, timeoutMs: FETCH_TIMEOUT_MS,
    }, MAX_DOCUMENT_BYTES);
    if (legacy.status !== 200) throw new Error(`failed to download legacy discovery for ${path}: ResponseCode: ${legacy.status}`);
    // Not kept: it holds one group-version of what the service may serve.
    return { discovery: new Map([[gvKey(group, version), convertLegacy(group, version, legacy.body)]]), fetchedAt };
  }
}
