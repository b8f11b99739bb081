/**
 * API discovery: the documents clients read before anything else to learn which groups, versions
 * and resources the server serves. Two forms exist, as in Kubernetes:
 * - the plain form: `/api` (APIVersions), `/apis` (APIGroupList), `/apis/<group>` (APIGroup),
 *   `/api/v1` and `/apis/<group>/<version>` (APIResourceList);
 * - the aggregated form (apidiscovery v2 / v2beta1 APIGroupDiscoveryList) on `/api` and `/apis`,
 *   chosen by the Accept header. kubectl decides which form it got by the response Content-Type only.
 * Groups served by extension API servers (APIServices with a service) come from an optional
 * RemoteDiscoverySource (the aggregation layer's): listed in `/apis` and answered on `/apis/<group>`
 * from the APIServices, merged into the aggregated document as kube-aggregator merges them.
 */
import { groupPriority } from './group-priority';
import { sendWithEtag } from './etag-response';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { errors } from '../meta/api-errors';
import { discoveryGroups, Naming } from '../naming';
import { apiVersionOf, GroupVersion, ResourceDef } from '../scheme/types';

// ---- wire types (field names and omitempty rules are Kubernetes') ----

export interface GroupVersionForDiscovery { groupVersion: string; version: string }

/** `/api`: the core group's versions. Kubernetes sends no apiVersion here. */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList { kind: 'APIGroupList'; apiVersion: 'v1'; groups: APIGroup[] }

/** One entry of an APIResourceList; subresources appear as `<resource>/<sub>` with an empty singularName. */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
  /** A subresource whose kind is of another group/version (serviceaccounts/token). */
  group?: string;
  version?: string;
}

export interface APIResourceList { kind: 'APIResourceList'; apiVersion: 'v1'; groupVersion: string; resources: APIResource[] }

export interface GroupVersionKind { group: string; version: string; kind: string }

export interface APISubresourceDiscovery { subresource: string; responseKind: GroupVersionKind; verbs: string[] }

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

/** A remote group-version whose discovery could not be fetched is sent without `resources` (Go's omitempty). */
export interface APIVersionDiscovery { version: string; resources: APIResourceDiscovery[]; freshness: 'Current' | 'Stale' }

/** Core group's item has `metadata: {}` (its name is the empty string, omitted as Kubernetes does). */
export interface APIGroupDiscovery { metadata: { name?: string }; versions: APIVersionDiscovery[] }

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: string;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

// ---- groups of extension API servers ----

/**
 * A group served (at least in part) by extension API servers: its priority (the highest
 * groupPriorityMinimum of its APIServices), its versions in kube-aggregator's order (by
 * versionPriority, then Kubernetes' version order; every APIService, available or not), and the
 * aggregated discovery fetched for them (no resources and `Stale` when the fetch failed or the
 * APIService is unavailable; a version not yet fetched has none and is left out of the
 * aggregated document).
 */
export interface RemoteGroup { name: string; priority: number; versions: string[]; discovery: APIVersionDiscovery[] }

/** What the aggregation layer gives discovery; `groups()` returns the same array until something changes. */
export interface RemoteDiscoverySource { groups(): readonly RemoteGroup[] }

/** A served group merged with the remote groups: name, priority, versions in order. */
interface ListedGroup { name: string; priority: number; versions: string[]; remote?: RemoteGroup }

/**
 * The named groups of `/apis` and the aggregated document: this server's (./group-priority.ts)
 * and the extension servers', by priority (highest first), then name. A group served both here
 * and by an APIService lists the local versions first, then the remote ones not served here.
 */
function listedGroups(resources: readonly ResourceDef[], remote: readonly RemoteGroup[]): ListedGroup[] {
  const out: ListedGroup[] = servedGroupsWithPriority(resources).map((g) => ({ ...g }));
  for (const r of remote) {
    const local = out.find((g) => g.name === r.name);
    if (local) {
      for (const v of r.versions) if (!local.versions.includes(v)) local.versions.push(v);
      local.priority = Math.max(local.priority, r.priority);
      local.remote = r;
    } else {
      out.push({ name: r.name, priority: r.priority, versions: [...r.versions], remote: r });
    }
  }
  return out.sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// ---- grouping ----

/** A served group and its versions, in the order the resources first name them. */
export interface ServedGroup { name: string; versions: string[] }

/**
 * The groups present in `resources`, in kube-apiserver's order: by group priority, highest first
 * (the core group first; built-in groups by Kubernetes' APIService priorities, ./group-priority.ts;
 * custom resource groups last), groups of equal priority by name. Versions keep the order of
 * first appearance; the first is the preferred version (the ResourceRegistry lists a custom
 * resource group's versions in Kubernetes' priority order).
 */
export function servedGroups(resources: readonly ResourceDef[]): ServedGroup[] {
  return servedGroupsWithPriority(resources).map(({ name, versions }) => ({ name, versions }));
}

function servedGroupsWithPriority(resources: readonly ResourceDef[]): (ServedGroup & { priority: number })[] {
  const versionsByGroup = new Map<string, string[]>();
  const custom = new Set<string>();
  for (const r of resources) {
    const versions = versionsByGroup.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    versionsByGroup.set(r.group, versions);
    // Custom resources refuse strategic merge (no Go types); built-in kinds never do.
    if (r.strategicMerge === false) custom.add(r.group);
  }
  const priority = (name: string) => groupPriority(name, custom.has(name));
  return [...versionsByGroup.entries()]
    .map(([name, versions]) => ({ name, versions, priority: priority(name) }))
    .sort((a, b) => b.priority - a.priority || (a.name === b.name ? 0 : a.name < b.name ? -1 : 1));
}

function resourcesOf(gv: GroupVersion, resources: readonly ResourceDef[]): ResourceDef[] {
  return resources
    .filter((r) => r.group === gv.group && r.version === gv.version)
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

function byName<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Adds `key: list` only when the list is non-empty (Kubernetes' omitempty). */
function withList<T extends object>(target: T, key: string, list: string[]): T {
  if (list.length) (target as Record<string, unknown>)[key] = [...list];
  return target;
}

/**
 * Kubernetes' storageVersionHash (apiserver pkg/endpoints/discovery/storageversionhash.go): the
 * first 8 bytes of SHA-256 of `<group>/<storage version>/<kind>`, standard base64. Clients
 * compare it to tell when a resource's storage version changed.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

// ---- plain form ----

/** The `/api` answer. `serverAddress` is the host:port the client used. */
export function buildApiVersions(serverAddress: string): APIVersions {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(g: ServedGroup): APIGroup {
  const versions = g.versions.map((version) => ({ groupVersion: `${g.name}/${version}`, version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

/**
 * The `/apis` answer: every named group (the core group is not listed), in priority order, with
 * the groups of extension servers' APIServices whether they are available or not (kube-aggregator's
 * apisHandler lists every APIService; clients learn of an unavailable one from its group-version).
 */
export function buildApiGroupList(resources: readonly ResourceDef[], remote: readonly RemoteGroup[] = []): APIGroupList {
  const groups = listedGroups(resources, remote).filter((g) => g.name !== '').map(groupEntry);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** The `/apis/<group>` answer, or undefined when neither this server nor an APIService serves the group. */
export function buildApiGroup(group: string, resources: readonly ResourceDef[], remote: readonly RemoteGroup[] = []): APIGroup | undefined {
  const g = group ? listedGroups(resources, remote.filter((r) => r.name === group)).find((s) => s.name === group) : undefined;
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g) } : undefined;
}

/**
 * The APIResourceList of one group/version: its resources sorted by name, each followed by its
 * subresources as `<resource>/<sub>`. Empty shortNames/categories are omitted; `resources` may
 * hold other group/versions, which are ignored. The list is empty when the gv is not served.
 */
export function buildApiResourceList(gv: GroupVersion, resources: readonly ResourceDef[]): APIResourceList {
  const out: APIResource[] = [];
  for (const r of resourcesOf(gv, resources)) {
    const entry: APIResource = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs] };
    withList(withList(entry, 'shortNames', r.shortNames), 'categories', r.categories);
    // Only what is stored has a storage version (not TokenReview and the other virtual kinds).
    if (!r.virtual) entry.storageVersionHash = storageVersionHash(r.storageGroup ?? r.group, r.storageVersion ?? r.version, r.kind);
    out.push(entry);
    for (const s of [...r.subresources].sort(byName((x) => x.name))) {
      const sub: APIResource = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: [...s.verbs] };
      if (s.group !== undefined || s.version !== undefined) Object.assign(sub, { group: s.group ?? r.group, version: s.version ?? r.version });
      out.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(gv), resources: out };
}

// ---- aggregated form ----

function resourceDiscovery(r: ResourceDef): APIResourceDiscovery {
  const entry: APIResourceDiscovery = {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  withList(withList(entry, 'shortNames', r.shortNames), 'categories', r.categories);
  if (r.subresources.length) {
    entry.subresources = [...r.subresources].sort(byName((s) => s.name)).map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind },
      verbs: [...s.verbs],
    }));
  }
  return entry;
}

/**
 * The aggregated discovery document of `/api` (the core group only) or `/apis` (the named groups,
 * sorted by name). `apiVersion` is the negotiated `<discovery group>/<v2|v2beta1>`.
 */
export function buildAggregatedDiscovery(resources: readonly ResourceDef[], root: '/api' | '/apis', apiVersion: string,
  remote: readonly RemoteGroup[] = []): APIGroupDiscoveryList {
  const groups = listedGroups(resources, root === '/apis' ? remote : []).filter((g) => (root === '/api') === (g.name === ''));
  const items: APIGroupDiscovery[] = [];
  for (const g of groups) {
    const versions: APIVersionDiscovery[] = [];
    for (const version of g.versions) {
      const local = resourcesOf({ group: g.name, version }, resources);
      if (local.length) {
        versions.push({ version, resources: local.map(resourceDiscovery), freshness: 'Current' });
        continue;
      }
      const fetched = g.remote?.discovery.find((v) => v.version === version);
      if (fetched) versions.push(copyVersion(fetched));
    }
    if (versions.length) items.push({ metadata: g.name ? { name: g.name } : {}, versions });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}

/** A remote version entry as sent: resources omitted when there are none (Go's omitempty). */
function copyVersion(v: APIVersionDiscovery): APIVersionDiscovery {
  if (v.resources?.length) return { version: v.version, resources: v.resources, freshness: v.freshness };
  return { version: v.version, freshness: v.freshness } as APIVersionDiscovery;
}

// ---- negotiation ----

const aggregatedAs = 'APIGroupDiscoveryList';
const aggregatedVersions = ['v2', 'v2beta1'];

/** The form chosen for a discovery answer and the exact Content-Type to send with it. */
export type DiscoveryMedia =
  | { form: 'plain'; contentType: 'application/json' }
  | { form: 'aggregated'; group: string; version: string; apiVersion: string; contentType: string };

const plain: DiscoveryMedia = { form: 'plain', contentType: 'application/json' };

interface MediaRange { type: string; params: Record<string, string>; q: number }

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    ranges.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 1 });
  }
  // Stable sort: equal q keeps the client's order.
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q);
}

/** The media types a discovery endpoint can produce, for the 406 message. */
export function discoveryMediaTypes(naming: Naming, aggregated = true): string[] {
  const out = ['application/json'];
  if (aggregated) {
    for (const v of aggregatedVersions) out.push(`application/json;g=${naming.discoveryGroup};v=${v};as=${aggregatedAs}`);
  }
  return out;
}

/**
 * Chooses the discovery form from an Accept header: entries are tried by q-value (highest first,
 * ties in header order) and the first one we can produce wins. `application/json` without `as`,
 * `application/*` and `*\/*` mean the plain form; `application/json;g=<apidiscovery.k8s.io or
 * apidiscovery.orch.io>;v=<v2|v2beta1>;as=APIGroupDiscoveryList` the aggregated form (only when
 * `allowAggregated`). A missing or empty header means plain. Throws NotAcceptable (406) otherwise.
 */
export function negotiateDiscovery(accept: string | undefined, naming: Naming, allowAggregated = true): DiscoveryMedia {
  if (!accept || !accept.trim()) return plain;
  for (const r of parseAccept(accept)) {
    if (r.type === '*/*' || r.type === 'application/*') return plain;
    if (r.type !== 'application/json') continue;
    const { as, g, v } = r.params;
    if (as === undefined) return plain;
    if (allowAggregated && as === aggregatedAs && discoveryGroups.includes(g) && aggregatedVersions.includes(v)) {
      return { form: 'aggregated', group: g, version: v, apiVersion: `${g}/${v}`, contentType: `application/json;g=${g};v=${v};as=${aggregatedAs}` };
    }
  }
  throw errors.notAcceptable(discoveryMediaTypes(naming, allowAggregated));
}

// ---- routes ----

/** host:port the client used; adds the local port when the Host header carries none. */
function serverAddressOf(ctx: Context): string {
  const host = ctx.host || ctx.req.socket.localAddress || 'localhost';
  const hasPort = host.startsWith('[') ? /\]:\d+$/.test(host) : host.includes(':');
  return hasPort ? host : `${host}:${ctx.req.socket.localPort ?? ''}`;
}

function send(ctx: Context, body: object, contentType: string): void {
  ctx.status = 200;
  ctx.body = body;
  ctx.set('Content-Type', contentType);
}

/** A rendered aggregated document and its ETag (a hash of its bytes, as Kubernetes sends). */
interface RenderedDocument { body: Buffer; etag: string }

/**
 * The aggregated documents rendered once per served set (keyed on the snapshot's identity, which
 * changes with every change of the set), with an ETag honoured by If-None-Match (304).
 */
class AggregatedCache {
  private forResources?: readonly ResourceDef[];
  private forRemote?: readonly RemoteGroup[];
  private readonly docs = new Map<string, RenderedDocument>();

  get(resources: readonly ResourceDef[], root: '/api' | '/apis', apiVersion: string, remote: readonly RemoteGroup[]): RenderedDocument {
    if (resources !== this.forResources || remote !== this.forRemote) {
      this.forResources = resources;
      this.forRemote = remote;
      this.docs.clear();
    }
    const key = `${root}|${apiVersion}`;
    let doc = this.docs.get(key);
    if (!doc) {
      const body = Buffer.from(JSON.stringify(buildAggregatedDiscovery(resources, root, apiVersion, remote)));
      doc = { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
      this.docs.set(key, doc);
    }
    return doc;
  }
}

function sendAggregated(ctx: Context, doc: RenderedDocument, contentType: string): void {
  sendWithEtag(ctx, doc.etag, contentType, doc.body);
}

export interface DiscoveryOptions {
  /** Everything served, read on every request so that newly registered kinds show up at once. */
  resources: () => readonly ResourceDef[];
  naming: Naming;
  /** The groups of extension API servers (the aggregation layer); absent: none. */
  remote?: RemoteDiscoverySource;
}

const NO_REMOTE: readonly RemoteGroup[] = [];

/**
 * Registers GET `/api`, `/apis`, `/api/v1`, `/apis/:group` and `/apis/:group/:version`.
 * Unknown groups/versions throw NotFound (errors.notFoundPath); an unproducible Accept throws 406.
 */
export function installDiscovery(router: Router, opts: DiscoveryOptions): void {
  const { naming } = opts;
  const aggregated = new AggregatedCache();
  const remote = () => opts.remote?.groups() ?? NO_REMOTE;

  router.get('/api', (ctx) => {
    const media = negotiateDiscovery(ctx.get('Accept'), naming);
    if (media.form === 'aggregated') {
      sendAggregated(ctx, aggregated.get(opts.resources(), '/api', media.apiVersion, remote()), media.contentType);
    } else {
      send(ctx, buildApiVersions(serverAddressOf(ctx)), media.contentType);
    }
  });

  router.get('/apis', (ctx) => {
    const media = negotiateDiscovery(ctx.get('Accept'), naming);
    if (media.form === 'aggregated') {
      sendAggregated(ctx, aggregated.get(opts.resources(), '/apis', media.apiVersion, remote()), media.contentType);
    } else {
      send(ctx, buildApiGroupList(opts.resources(), remote()), media.contentType);
    }
  });

  const resourceList = (ctx: Context, gv: GroupVersion): void => {
    const resources = opts.resources();
    if (!resources.some((r) => r.group === gv.group && r.version === gv.version)) throw errors.notFoundPath();
    const media = negotiateDiscovery(ctx.get('Accept'), naming, false);
    send(ctx, buildApiResourceList(gv, resources), media.contentType);
  };

  router.get('/api/v1', (ctx) => resourceList(ctx, { group: '', version: 'v1' }));

  router.get('/apis/:group', (ctx) => {
    const group = buildApiGroup(ctx.params.group, opts.resources(), remote());
    if (!group) throw errors.notFoundPath();
    const media = negotiateDiscovery(ctx.get('Accept'), naming, false);
    send(ctx, group, media.contentType);
  });

  router.get('/apis/:group/:version', (ctx) => resourceList(ctx, { group: ctx.params.group, version: ctx.params.version }));
}
