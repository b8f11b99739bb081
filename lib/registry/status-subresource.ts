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
  normalize?: (status: Record<string, unknown>, current: ApiObject) => Record<string, unknown>,
  opts: StatusOptions = {}): SubresourceDef {
  return {
    name: 'status', kind, verbs: ['get', 'patch', 'update'],
    applyUpdate: (incoming, current) => {
      const given = incoming.status;
      const status = given && typeof given === 'object' && !Array.isArray(given) ? { ...(given as Record<string, unknown>) } : {};
      const out: ApiObject = { ...current, status: normalize ? normalize(status, current) : status };
      if (opts.annotationsFromRequest) {
        const { annotations: _stored, ...rest } = current.metadata ?? {};
        const annotations = incoming.metadata?.annotations;
        out.metadata = annotations === undefined ? rest : { ...rest, annotations };
      }
      return out;
    },
  };
}

export interface StatusOptions {
  /**
   * The write's metadata.annotations replace the stored ones, as Kubernetes' status strategies
   * that keep only the spec and labels of the stored object (the apps workloads'): the 1.20
   * deployment controller writes the `deployment.kubernetes.io/revision` annotation with
   * UpdateStatus, and `kubectl rollout undo` needs it.
   */
  annotationsFromRequest?: boolean;
}
