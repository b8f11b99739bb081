/**
 * The `/scale` subresource of Deployment and ReplicaSet (Kubernetes' deployment and replicaset
 * ScaleREST): an autoscaling/v1 Scale whose spec.replicas is the object's spec.replicas, whose
 * status.replicas is its status.replicas, and whose status.selector is its selector as a
 * label-selector string. The handler is the generic one for built-in kinds with `scale`.
 */
import { ApiObject, SubresourceDef } from '../../scheme/types';
import { Json } from '../core/json-fields';
import { count, specOf, statusOf } from '../core/template-columns';
import { labelSelectorString } from '../../meta/label-format';

/** The `scale` subresource of a kind whose spec.replicas defaults to 1. */
export function replicaScaleSubresource(): SubresourceDef {
  return {
    name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'],
    scale: {
      specReplicas: (obj) => { const r = specOf(obj as Json).replicas; return typeof r === 'number' ? r : 1; },
      statusReplicas: (obj) => count(statusOf(obj as Json), 'replicas'),
      selector: (obj) => labelSelectorString(specOf(obj as Json).selector) ?? '',
      withReplicas: (obj, replicas) => ({ ...obj, spec: { ...specOf(obj as Json), replicas } }) as ApiObject,
    },
  };
}
