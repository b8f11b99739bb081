/**
 * `POST /api/v1/namespaces/<ns>/pods/<name>/binding` (authorized as `create` on `pods/binding`)
 * and `POST /api/v1/namespaces/<ns>/bindings` (`create` on `bindings`), as kube-apiserver 1.32's
 * BindingREST and LegacyBindingREST answer them. The body is a core/v1 Binding whose name is the
 * pod's (it must match the URL's), whose target names a Node (kind `Node` or empty) and whose
 * annotations are copied onto the pod. Admission (webhooks included) sees a CREATE of
 * `pods/binding` (or of `bindings`) carrying the Binding. Success: 201 with a Status Success;
 * a pod already bound, terminating or gated: 409 Conflict; a missing pod: 404.
 *
 * Kubernetes answers a Binding that fails ValidatePodBinding with a 500 (a plain aggregate error);
 * here it is the client's input: 422 Invalid with the same causes.
 */
import { CustomScope } from '../resource-handler';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from '../handlers/scope';
import { writeObject } from '../response-writer';
import { errors } from '../../meta/api-errors';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { bindingResource } from '../../registry/core/bindings/definition';
import { ApiObject } from '../../scheme/types';
import { assignPod } from './assign';

export interface BindingDeps {
  stores: StoreIndex;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ValidatePodBinding. */
function validateBinding(binding: ApiObject): FieldError[] {
  const target = isObject(binding.target) ? binding.target : {};
  const errs: FieldError[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind && kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!(typeof target.name === 'string' && target.name)) errs.push(fieldErrors.required('target.name'));
  return errs;
}

/** The handler of pods/binding (`subresource`) or of the bindings collection. */
export function bindingHandler(deps: BindingDeps, subresource: boolean) {
  const kind = bindingResource();
  return async (s: CustomScope): Promise<void> => {
    const namespace = s.info.namespace as string;
    const { dryRun } = writeOptionsOf(s.ctx, 'create');
    let binding = await readBodyAs(s.ctx, kind, namespace);
    const pods = deps.stores.get(storeKey('', 'v1', 'pods')) as GenericStore;
    const ctx = requestStrategyContext(s.ctx, namespace, s.user);
    const name = subresource ? s.info.name as string : (binding.metadata?.name ?? '');
    const attrs = {
      operation: 'CREATE' as const, resource: subresource ? pods.def : kind, subresource: subresource ? 'binding' : undefined,
      namespace, name, object: binding, dryRun, ctx,
    };
    await pods.deps.admission.admit(attrs);
    binding = attrs.object;
    if ((binding.metadata?.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Binding object');
    const errs = validateBinding(binding);
    if (errs.length) throw errors.invalid('Binding', '', name, errs);
    await pods.deps.admission.validate({ ...attrs, object: binding });
    const meta = binding.metadata ?? {};
    const target = binding.target as Json;
    await assignPod(pods, {
      namespace, pod: name, node: String(target.name), annotations: { ...(meta.annotations ?? {}) },
      uid: meta.uid || undefined, resourceVersion: meta.resourceVersion || undefined, dryRun,
    });
    writeObject(s.ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  };
}
