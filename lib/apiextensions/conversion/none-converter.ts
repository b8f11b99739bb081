/**
 * Conversion strategy `None` (Kubernetes' nopConverter): every version has the same schema, so
 * converting only rewrites `apiVersion`; nothing else of the object changes.
 */
import { ApiObject } from '../../scheme/types';
import { CrdConversionInfo, checkVersions } from './crd-conversion-info';
import type { ConvertOptions, SyncConverter } from './converter-interface';

/** The `None` converter of one CRD. */
export class NoneConverter implements SyncConverter {
  readonly strategy = 'None';

  constructor(private readonly info: CrdConversionInfo) {}

  /**
   * Objects already at `toVersion` are returned as they are (the same objects); the others as
   * shallow copies with the new apiVersion, so nested values are shared with the input: callers
   * that go on to mutate a result must copy it first.
   */
  convert(objects: readonly ApiObject[], toVersion: string, opts: ConvertOptions = {}): ApiObject[] {
    checkVersions(this.info, objects, toVersion, !!opts.list);
    const apiVersion = `${this.info.group}/${toVersion}`;
    return objects.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
  }
}
