/**
 * One resource served at several versions of its group (admissionregistration v1 and v1beta1;
 * later custom resources with several versions). The storage version's def owns the etcd keys
 * (`<prefix>/<resource>/...`) and the watch cache; a def made here for another version shares
 * both (server.ts gives stores of one key prefix one cacher), and its store writes objects
 * labelled with the storage version and serves them relabelled with its own. Conversion is this
 * relabelling only: the versions must have the same shape. Each version keeps its own strategy
 * (defaults and validation as that version defines them), schema and table.
 */
import { ApiObject, ResourceDef, apiVersionOf } from '../scheme/types';

/**
 * `def` (a version's own definition) served over the objects of `storageVersion` of the same
 * group and resource. Output is relabelled with `def`'s apiVersion after any decoration of its
 * own, so reads, lists and watch events through this version answer in it.
 */
export function servedOverStorage(def: ResourceDef, storageVersion: string): ResourceDef {
  if (storageVersion === def.version) return def;
  const served = apiVersionOf(def);
  const decorate = def.strategy.decorate;
  return {
    ...def,
    storageVersion,
    strategy: {
      ...def.strategy,
      decorate: (obj: ApiObject): ApiObject => ({ ...(decorate ? decorate(obj) : obj), apiVersion: served }),
    },
  };
}
