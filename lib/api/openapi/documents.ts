/**
 * The served OpenAPI documents as bytes with their content hashes, built on first use and
 * rebuilt only when the set of served resources changes.
 */
import { createHash } from 'node:crypto';
import { Naming } from '../../naming';
import { ResourceDef } from '../../scheme/types';
import { buildOpenApiV2 } from './v2';
import { buildOpenApiV3, buildOpenApiV3Index, DocumentInfo, groupVersionKey, servedGroupVersions } from './v3';

/** A document's bytes and hash: SHA-512 of the bytes in upper-case hex, as kube-openapi computes it. */
export interface ServedDocument { body: Buffer; hash: string }

export function servedDocument(doc: unknown): ServedDocument {
  const body = Buffer.from(JSON.stringify(doc));
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export class OpenApiDocuments {
  private built: ResourceDef[] = [];
  private v3?: Map<string, ServedDocument>;
  private v3Index?: ServedDocument;
  private v2Document?: ServedDocument;

  /** `resources` is read on every call, so kinds registered later show up at once. */
  constructor(private readonly resources: () => ResourceDef[], private readonly naming: Naming, private readonly info: DocumentInfo) {}

  /** The resources now served; drops the built documents when they changed. */
  private current(): ResourceDef[] {
    const now = this.resources();
    if (now.length !== this.built.length || now.some((r, i) => r !== this.built[i])) {
      this.built = [...now];
      this.v3 = this.v3Index = this.v2Document = undefined;
    }
    return now;
  }

  private groupVersions(): Map<string, ServedDocument> {
    const resources = this.current();
    this.v3 ??= new Map(servedGroupVersions(resources).map((gv) => [
      groupVersionKey(gv), servedDocument(buildOpenApiV3(gv, resources, this.naming, this.info)),
    ]));
    return this.v3;
  }

  /** The v3 document of `key` (`api/v1`, `apis/<group>/<version>`), or undefined when not served. */
  groupVersion(key: string): ServedDocument | undefined {
    return this.groupVersions().get(key);
  }

  /** The `/openapi/v3` index. */
  index(): ServedDocument {
    const docs = this.groupVersions();
    this.v3Index ??= servedDocument(buildOpenApiV3Index(new Map([...docs].map(([key, d]) => [key, d.hash]))));
    return this.v3Index;
  }

  /** The `/openapi/v2` document. */
  v2(): ServedDocument {
    const resources = this.current();
    this.v2Document ??= servedDocument(buildOpenApiV2(resources, this.naming, this.info));
    return this.v2Document;
  }
}
