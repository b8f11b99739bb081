/**
 * What a read from storage does to a custom resource before it is served (design 4.5): relabel
 * to the served version when stored at another one (conversion `None`), then prune and default
 * with the served version's schema, as Kubernetes' storage decoder does. Defaults added to a
 * schema after an object was written thus show on reads, without rewriting the object.
 * Exposed as a strategy `decorate` (so get, list and watch apply it today), and per def through
 * crReadPath() for a versioned read path that wants to apply it itself.
 */
import { ApiObject, ResourceDef } from '../../scheme/types';
import { CrSchemaRuntime } from '../../scheme/structural/runtime';

/** The read-path pieces of one served custom-resource version. */
export interface CrReadPath {
  /** The version's schema runtime (decode = prune, drop nulls, coerce embedded metadata, default). */
  runtime: CrSchemaRuntime;
  /** `<group>/<version>` served. */
  apiVersion: string;
  /** `<group>/<storage version>` objects are written in. */
  storageApiVersion: string;
  /** A stored object as served: a copy, relabelled and decoded; `obj` itself when nothing changes. */
  fromStorage(obj: ApiObject): ApiObject;
  /** Whether fromStorage can change an object (else stored bytes may be served as they are). */
  changesObjects: boolean;
}

const readPaths = new WeakMap<ResourceDef, CrReadPath>();

/** Builds the read path of a version. */
export function makeCrReadPath(runtime: CrSchemaRuntime, apiVersion: string, storageApiVersion: string): CrReadPath {
  const relabel = apiVersion !== storageApiVersion;
  const changesObjects = relabel || runtime.hasDefaults;
  return {
    runtime, apiVersion, storageApiVersion, changesObjects,
    fromStorage: (obj) => {
      if (!changesObjects) return obj;
      const out = structuredClone(obj);
      if (relabel) out.apiVersion = apiVersion;
      runtime.decode(out, { fromStorage: true });
      return out;
    },
  };
}

/** Records the read path of a built def (called by the factory). */
export function setCrReadPath(def: ResourceDef, path: CrReadPath): void {
  readPaths.set(def, path);
}

/** The read path of a custom-resource def built by buildCrServing, undefined for other defs. */
export function crReadPath(def: ResourceDef): CrReadPath | undefined {
  return readPaths.get(def);
}
