/**
 * The `/status` subresource of a custom resource (Kubernetes' customresource status strategy):
 * a write keeps everything of the stored object but `status`, which it takes from the request,
 * or removes when the request has none. Validation of such a write (status schema only) is in
 * cr-strategy.ts; generation does not move (status is not compared when /status exists).
 */
import { ApiObject, SubresourceDef } from '../../scheme/types';

/** The status SubresourceDef of a custom-resource kind. */
export function crStatusSubresource(kind: string): SubresourceDef {
  return {
    name: 'status', kind, verbs: ['get', 'patch', 'update'],
    applyUpdate: (incoming: ApiObject, current: ApiObject): ApiObject => {
      const { status: _old, ...rest } = current;
      return Object.hasOwn(incoming, 'status') ? { ...rest, status: incoming.status } : rest;
    },
  };
}
