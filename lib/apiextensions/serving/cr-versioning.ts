/**
 * The versioning of one served custom-resource version (design 3.6, 3.9): stored objects are
 * converted by the CRD's converter to the served version, then pruned and defaulted with its
 * schema (so defaults added later show on reads); writes are converted to the storage version
 * before they are encoded. An object stored at the served version whose schema has no defaults
 * is served as its stored bytes (get RV=0 and lists splice them without a parse).
 */
import { ApiObject, ObjectVersioning } from '../../scheme/types';
import { Converter } from '../conversion/converter-interface';
import { CrReadPath } from './cr-read';

/** The versioning of `version` of a CRD whose objects are written at `storageVersion`. */
export function crVersioning(converter: Converter, read: CrReadPath, version: string, storageVersion: string): ObjectVersioning {
  // Stored JSON starts with its apiVersion (storage-codec.ts): comparing the head needs no parse.
  const head = Buffer.from(`{"apiVersion":${JSON.stringify(read.apiVersion)},`);
  const defaults = read.runtime.hasDefaults;
  return {
    async fromStorage(objects, opts) {
      const out = await converter.convert(objects, version, opts);
      return out.map((o, i) => {
        // Converted objects are fresh (shallow for None): copied before pruning and defaulting.
        if (o === objects[i] && !defaults) return o;
        const copy = structuredClone(o);
        read.runtime.decode(copy, { fromStorage: true });
        return copy;
      });
    },
    async toStorage(object: ApiObject) {
      if (version === storageVersion) return object;
      return (await converter.convert([object], storageVersion))[0];
    },
    servesStored: (value) => !defaults && value.length > head.length && value.subarray(0, head.length).equals(head),
  };
}
