/**
 * The `/status` subresource of a kind: get, update and patch, where a write takes over only
 * the incoming `status` and keeps everything else of the stored object. Its counterpart, that
 * a write to the main resource keeps the stored status, is each strategy's prepareForUpdate.
 */
import { ApiObject, SubresourceDef } from '../scheme/types';

/**
 * `normalize` (optional) shapes the incoming status before it is stored: defaults, dropping
 * fields of disabled gates (it receives the stored object for "already in use" checks).
 */
export function statusSubresource(kind: string,
  normalize?: (status: Record<string, unknown>, current: ApiObject) => Record<string, unknown>): SubresourceDef {
  return {
    name: 'status', kind, verbs: ['get', 'patch', 'update'],
    applyUpdate: (incoming, current) => {
      const given = incoming.status;
      const status = given && typeof given === 'object' && !Array.isArray(given) ? { ...(given as Record<string, unknown>) } : {};
      return { ...current, status: normalize ? normalize(status, current) : status };
    },
  };
}
