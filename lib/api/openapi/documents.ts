/**
 * The served OpenAPI documents as bytes with their content hashes, built on first use and
 * rebuilt only where the served resources changed: a v3 document per group/version is kept as
 * long as that group/version's defs are the same objects, so a CRD change rebuilds its own
 * group/version's document (and the v2 document and the index) and every other hash stays the
 * same (kubectl's cached `?hash=` URLs stay valid). The DeleteOptions and WatchEvent kinds list
 * the built-in group/versions (plus the document's own), so custom resources coming and going do
 * not touch the built-in documents. The documents of extension API servers (a RemoteOpenApiSource)
 * are merged into the v2 document and listed in the v3 index (./remote.ts). The v2 document
 * (several MB with a few hundred custom resources) is built and serialized in slices of the
 * event loop; its protobuf and gzip forms are ./v2-forms.ts's.
 */
import { createHash } from 'node:crypto';
import { Naming } from '../../naming';
import { GroupVersion, ResourceDef } from '../../scheme/types';
import { openApiV2Steps } from './v2';
import { servedSteps } from './sliced-json';
import { runInSlices, TimeSlice } from './time-slice';
import { mergeV2Documents, RemoteOpenApiSource } from './remote';
import type { Json } from './schema-writer';
import { buildOpenApiV3, buildOpenApiV3Index, DocumentInfo, groupVersionKey, resourcesOfGroupVersion, servedGroupVersions } from './v3';

/** A document's bytes and hash: SHA-512 of the bytes in upper-case hex, as kube-openapi computes it. */
export interface ServedDocument { body: Buffer; hash: string }

export function servedDocument(doc: unknown): ServedDocument {
  return servedBytes(Buffer.from(JSON.stringify(doc)));
}

export function servedBytes(body: Buffer): ServedDocument {
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** `p`, with `forget` called when it fails (so that the next caller builds again). */
function forgetOnFailure<T>(p: Promise<T>, forget: () => void): Promise<T> {
  p.catch(forget);
  return p;
}

interface GroupVersionDocument { gv: GroupVersion; defs: ResourceDef[]; doc?: ServedDocument }

const sameDefs = (a: readonly ResourceDef[], b: readonly ResourceDef[]) => a.length === b.length && a.every((d, i) => d === b[i]);

export class OpenApiDocuments {
  private built?: readonly ResourceDef[];
  private baseKey = '';
  private base: GroupVersion[] = [];
  private v3 = new Map<string, GroupVersionDocument>();
  private v3Index?: ServedDocument;
  /** Being built, or built: a change of the served resources drops them (a build under way finishes for its callers). */
  private v2Local?: Promise<Json>;
  private v2Document?: Promise<ServedDocument>;
  /** What the served v2 document and index were built with (remote parts included). */
  private v2Remote?: readonly Json[];
  private v3Remote?: ReadonlyMap<string, string>;

  /**
   * `resources` is read on every call, so kinds registered later show up at once; `isBuiltin`
   * tells the built-in defs (default: all are).
   */
  constructor(private readonly resources: () => readonly ResourceDef[], private readonly naming: Naming, private readonly info: DocumentInfo,
    private readonly isBuiltin: (def: ResourceDef) => boolean = () => true, private readonly remote?: RemoteOpenApiSource) {}

  /** The resources now served; drops what changed since the documents were built. */
  private current(): readonly ResourceDef[] {
    const now = this.resources();
    if (this.built && (now === this.built || sameDefs(now, this.built))) return now;
    this.built = [...now];
    this.v3Index = this.v2Document = this.v2Local = undefined;
    const base = servedGroupVersions(now.filter(this.isBuiltin));
    const baseKey = JSON.stringify(base);
    if (baseKey !== this.baseKey) this.v3.clear();
    this.base = base;
    this.baseKey = baseKey;
    const next = new Map<string, GroupVersionDocument>();
    for (const gv of servedGroupVersions(now)) {
      const key = groupVersionKey(gv);
      const defs = resourcesOfGroupVersion(gv, now);
      const old = this.v3.get(key);
      next.set(key, old && sameDefs(old.defs, defs) ? old : { gv, defs });
    }
    this.v3 = next;
    return now;
  }

  private document(entry: GroupVersionDocument): ServedDocument {
    if (!entry.doc) {
      const { gv } = entry;
      const meta = this.base.some((b) => b.group === gv.group && b.version === gv.version) ? this.base : [...this.base, gv];
      entry.doc = servedDocument(buildOpenApiV3(gv, entry.defs, this.naming, this.info, meta));
    }
    return entry.doc;
  }

  /** The v3 document of `key` (`api/v1`, `apis/<group>/<version>`), or undefined when not served. */
  groupVersion(key: string): ServedDocument | undefined {
    this.current();
    const entry = this.v3.get(key);
    return entry && this.document(entry);
  }

  /** The `/openapi/v3` index: this server's group/versions and the extension servers' (theirs as they list them). */
  index(): ServedDocument {
    this.current();
    const remote = this.remote?.v3Paths();
    if (remote !== this.v3Remote) {
      this.v3Remote = remote;
      this.v3Index = undefined;
    }
    if (!this.v3Index) {
      const index = buildOpenApiV3Index(new Map([...this.v3].map(([key, e]) => [key, this.document(e).hash])));
      for (const [key, url] of remote ?? []) if (!this.v3.has(key)) index.paths[key] = { serverRelativeURL: url };
      index.paths = Object.fromEntries(Object.keys(index.paths).sort().map((k) => [k, index.paths[k]]));
      this.v3Index = servedDocument(index);
    }
    return this.v3Index;
  }

  /**
   * The `/openapi/v2` document: this server's, then the extension servers' merged in by priority.
   * Built and serialized in slices of the event loop (./time-slice.ts), never in one piece;
   * callers while a build runs share it.
   */
  v2(): Promise<ServedDocument> {
    const resources = this.current();
    const remote = this.remote?.v2Documents();
    if (remote !== this.v2Remote) {
      this.v2Remote = remote;
      this.v2Document = undefined;
    }
    if (!this.v2Document) {
      const slice = new TimeSlice();
      const local = this.v2Local ??= forgetOnFailure(runInSlices(openApiV2Steps(resources, this.naming, this.info), slice), () => {
        if (this.v2Local === local) this.v2Local = undefined;
      });
      const doc: Promise<ServedDocument> = forgetOnFailure(
        local.then((base) => runInSlices(servedSteps(remote?.length ? mergeV2Documents(base, remote) : base), slice)),
        () => { if (this.v2Document === doc) this.v2Document = undefined; },
      );
      this.v2Document = doc;
    }
    return this.v2Document;
  }
}
