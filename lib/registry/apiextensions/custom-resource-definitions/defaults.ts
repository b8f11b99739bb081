/**
 * Kubernetes' v1 defaults of a CustomResourceDefinition: singular (the lower-cased kind),
 * listKind (`<kind>List`), conversion strategy None, a conversion service's port 443, and
 * status.storedVersions (the storage version) when empty.
 */
import { ApiObject } from '../../../scheme/types';
import { crdVersions } from './view';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** SetObjectDefaults_CustomResourceDefinition, in place. */
export function defaultCrd(obj: ApiObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  if (isObject(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind) names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const service = isObject(spec.conversion) && isObject(spec.conversion.webhook) && isObject(spec.conversion.webhook.clientConfig)
    ? spec.conversion.webhook.clientConfig.service : undefined;
  if (isObject(service) && (service.port === undefined || service.port === null)) service.port = 443;
  if (obj.status !== undefined && obj.status !== null && !isObject(obj.status)) return;
  const status = (obj.status ?? {}) as Record<string, unknown>;
  if (!Array.isArray(status.storedVersions) || !status.storedVersions.length) {
    const storage = crdVersions(spec).find((v) => v.storage === true);
    if (storage) {
      status.storedVersions = [storage.name];
      obj.status = status;
    }
  }
}
