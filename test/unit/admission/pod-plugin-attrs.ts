/** Hand-made AdmissionAttributes for the Pod plugins' unit tests. */
import { AdmissionAttributes, Operation } from '../../../lib/registry/admission-attributes';
import { ApiError } from '../../../lib/meta/api-errors';
import { ApiObject, ResourceDef } from '../../../lib/scheme/types';

export const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as ResourceDef;

/** A request on `pod` in namespace `team` (a deep copy: the plugin may change it). */
export function podAttrs(pod: ApiObject, opts: { operation?: Operation; old?: ApiObject; subresource?: string; resource?: ResourceDef } = {}): AdmissionAttributes {
  const object = JSON.parse(JSON.stringify(pod)) as ApiObject;
  return {
    operation: opts.operation ?? 'CREATE', resource: opts.resource ?? PODS, subresource: opts.subresource, namespace: 'team',
    name: object.metadata?.name ?? '', object, oldObject: opts.old, dryRun: false, ctx: { namespace: 'team' },
  };
}

/** A pod named `name` with `spec` (one container `app` when spec has none). */
export function pod(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject {
  return { metadata: { name: 'web', namespace: 'team', ...meta }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } };
}

/** The ApiError `fn` rejects with (fails when it resolves). */
export async function rejection(fn: () => Promise<unknown>): Promise<ApiError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** The pod spec after the plugin ran. */
export const specOf = (a: AdmissionAttributes): Record<string, any> => a.object!.spec as Record<string, any>;
