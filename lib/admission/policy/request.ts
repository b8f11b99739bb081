/**
 * The `request` variable of admission CEL (Kubernetes' CreateAdmissionRequest): the
 * AdmissionRequest's fields (kind, resource, subResource, requestKind, requestResource,
 * requestSubResource, name, namespace, operation, userInfo, dryRun, options) without the objects,
 * which are the `object` and `oldObject` variables.
 */
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { kindOf } from '../webhook/webhook-matcher';

type Obj = Record<string, unknown>;

export function celRequest(attrs: AdmissionAttributes, metaGroup: string): Obj {
  const user = userOf(attrs);
  const userInfo: Obj = { username: user.name ?? '' };
  if (user.uid) userInfo.uid = user.uid;
  userInfo.groups = user.groups ?? [];
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  const r = attrs.resource;
  const kind = kindOf(r, attrs.subresource);
  const resource = { group: r.group, version: r.version, resource: r.resource };
  const isNamespace = r.group === '' && r.resource === 'namespaces';
  const options: Obj | null = attrs.operation === 'CONNECT' ? null : {
    kind: attrs.operation === 'CREATE' ? 'CreateOptions' : attrs.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions',
    apiVersion: `${metaGroup}/v1`,
    ...(attrs.dryRun ? { dryRun: ['All'] } : {}),
    ...(attrs.fieldManager ? { fieldManager: attrs.fieldManager } : {}),
  };
  return {
    kind, resource, subResource: attrs.subresource ?? '',
    requestKind: kind, requestResource: resource, requestSubResource: attrs.subresource ?? '',
    name: attrs.name || attrs.object?.metadata?.name || '',
    namespace: isNamespace ? (attrs.operation === 'CREATE' ? '' : attrs.name) : (attrs.namespace ?? ''),
    operation: attrs.operation, userInfo, dryRun: attrs.dryRun, options,
  };
}
