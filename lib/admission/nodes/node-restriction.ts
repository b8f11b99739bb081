/**
 * NodeRestriction (plugin/pkg/admission/noderestriction, Kubernetes 1.32): what a node agent
 * (user `system:node:<name>` in group `system:nodes`) may write beyond what the Node authorizer
 * lets it reach. It may create only mirror pods bound to itself and owned by its Node, that
 * reference no service account, secret, config map, claim or generic ephemeral volume; delete and
 * evict only pods bound to it; update the status of those pods only (labels untouched); create
 * and update only its own Node, without a config source, without changing taints, and with only
 * the labels node-labels.ts allows (never deleting a Node, as the spec's table says); update only
 * claims' status.capacity, conditions and resize status; request service-account tokens only bound
 * to a pod on itself; use only its own Lease in the node lease namespace and its own CSINode.
 * Refusals are 403 Forbidden in Kubernetes' words. Other users pass untouched.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { ApiError } from '../../meta/api-errors';
import { semanticEqual } from '../../registry/core/semantic-equal';
import { admissionForbidden } from '../resources/admission-forbidden';
import { forbiddenNodeLabels, modifiedLabels } from './node-labels';
import { podReferencesOtherObjects } from './pod-references';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (o: ApiObject | undefined): Json => (o && isObject(o.spec) ? o.spec : {});
const NODE_PREFIX = 'system:node:';

/** NodeIdentity: the node name of a node agent's user, '' for a node user without one, undefined for others. */
export function nodeNameOf(attrs: AdmissionAttributes): string | undefined {
  const user = userOf(attrs);
  if (!(user.groups ?? []).includes('system:nodes') || !user.name.startsWith(NODE_PREFIX)) return undefined;
  return user.name.slice(NODE_PREFIX.length);
}

export function nodeRestriction(stores: StoreIndex, naming: Naming): AdmissionPlugin {
  const coordination = naming.group('coordination');
  const storage = naming.group('storage');
  const mirrorAnnotation = `${naming.labelDomain}/config.mirror`;
  const forbid = (a: AdmissionAttributes, why: string) => admissionForbidden(a, why);

  /**
   * A stored object: the request's current read of it when its handler shares its reads (a
   * TokenRequest reads the pod once), else from the watch cache when it has it; a 404 is answered
   * as it is.
   */
  const stored = async (a: AdmissionAttributes, resource: string, group: string, namespace: string | undefined, name: string): Promise<ApiObject> => {
    const store = stores.get(storeKey(group, 'v1', resource));
    if (!store) throw forbid(a, `${resource} are not served`);
    try {
      return await (a.reads ? store.get(namespace, name, undefined, a.reads) : store.get(namespace, name, '0'));
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) throw e;
      throw forbid(a, (e as Error).message);
    }
  };

  async function admitPodCreate(node: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object ?? {};
    if (!Object.hasOwn(pod.metadata?.annotations ?? {}, mirrorAnnotation)) {
      throw forbid(a, `pod does not have ${JSON.stringify(mirrorAnnotation)} annotation, node ${JSON.stringify(node)} can only create mirror pods`);
    }
    if (specOf(pod).nodeName !== node) throw forbid(a, `node ${JSON.stringify(node)} can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata?.ownerReferences ?? [];
    if (owners.length > 1) throw forbid(a, `node ${JSON.stringify(node)} can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw forbid(a, `node ${JSON.stringify(node)} can only create pods with an owner reference set to itself`);
    const owner = owners[0];
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw forbid(a, `node ${JSON.stringify(node)} can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw forbid(a, `node ${JSON.stringify(node)} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbid(a, `node ${JSON.stringify(node)} must not set blockOwnerDeletion on an owner reference`);
    const nodeObj = await stored(a, 'nodes', '', undefined, node);
    if (owner.uid !== nodeObj.metadata?.uid) {
      throw forbid(a, `node ${node} UID mismatch: expected ${nodeObj.metadata?.uid ?? ''} got ${owner.uid ?? ''}`);
    }
    const what = podReferencesOtherObjects(pod);
    if (what) throw forbid(a, `node ${JSON.stringify(node)} can not create pods that ${what}`);
  }

  async function admitPod(node: string, a: AdmissionAttributes): Promise<void> {
    switch (a.subresource ?? '') {
      case '':
        if (a.operation === 'CREATE') return admitPodCreate(node, a);
        if (a.operation === 'DELETE') {
          const pod = await stored(a, 'pods', '', a.namespace, a.name);
          if (specOf(pod).nodeName !== node) throw forbid(a, `node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
          return undefined;
        }
        throw forbid(a, `unexpected operation ${JSON.stringify(a.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`);
      case 'status': {
        if (a.operation !== 'UPDATE') throw forbid(a, `unexpected operation ${JSON.stringify(a.operation)}`);
        if (specOf(a.oldObject).nodeName !== node) {
          throw forbid(a, `node ${JSON.stringify(node)} can only update pod status for pods with spec.nodeName set to itself`);
        }
        if (modifiedLabels(a.object?.metadata?.labels, a.oldObject?.metadata?.labels).length) {
          throw forbid(a, `node ${JSON.stringify(node)} cannot update labels through pod status`);
        }
        return undefined;
      }
      case 'eviction': {
        if (a.operation !== 'CREATE') throw forbid(a, `unexpected operation ${a.operation}`);
        const podName = a.name || (a.object?.metadata?.name ?? '');
        if (!podName) throw forbid(a, 'could not determine pod from request data');
        const pod = await stored(a, 'pods', '', a.namespace, podName);
        if (specOf(pod).nodeName !== node) throw forbid(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
        return undefined;
      }
      default:
        throw forbid(a, `unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`);
    }
  }

  function admitNode(node: string, a: AdmissionAttributes): void {
    const requested = a.name || (a.object?.metadata?.name ?? '');
    if (requested !== node) throw forbid(a, `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(requested)}`);
    if (a.operation === 'DELETE') throw forbid(a, `node ${JSON.stringify(node)} is not allowed to delete nodes`);
    if (a.operation === 'CREATE') {
      if (specOf(a.object).configSource != null) throw forbid(a, `node ${JSON.stringify(node)} is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenNodeLabels(modifiedLabels(a.object?.metadata?.labels, undefined), naming);
      if (bad.length) throw forbid(a, `node ${JSON.stringify(node)} is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const source = specOf(a.object).configSource;
      if (source != null && !semanticEqual(source, specOf(a.oldObject).configSource)) {
        throw forbid(a, `node ${JSON.stringify(node)} is not allowed to update configSource to a new non-nil configSource`);
      }
      const taints = (v: unknown) => (Array.isArray(v) && v.length ? v : []);
      if (!semanticEqual(taints(specOf(a.object).taints), taints(specOf(a.oldObject).taints))) {
        throw forbid(a, `node ${JSON.stringify(node)} is not allowed to modify taints`);
      }
      const bad = forbiddenNodeLabels(modifiedLabels(a.object?.metadata?.labels, a.oldObject?.metadata?.labels), naming);
      if (bad.length) throw forbid(a, `is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  /** A claim's status update may change only capacity, conditions and the resize status. */
  function admitClaimStatus(node: string, a: AdmissionAttributes): void {
    if (a.subresource !== 'status') throw forbid(a, 'may only update PVC status');
    if (a.operation !== 'UPDATE') throw forbid(a, `unexpected operation ${JSON.stringify(a.operation)}`);
    const strip = (o: ApiObject | undefined): Json => {
      const { resourceVersion: _rv, managedFields: _mf, ...meta } = (o?.metadata ?? {}) as Json;
      const status = { ...(isObject(o?.status) ? o.status as Json : {}) };
      for (const f of ['capacity', 'conditions', 'allocatedResources', 'allocatedResourceStatuses']) delete status[f];
      return { ...o, metadata: meta, status };
    };
    const before = strip(a.oldObject);
    const after = strip(a.object);
    if (!semanticEqual(before, after)) {
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !semanticEqual(before[k], after[k]));
      throw forbid(a, `node ${JSON.stringify(node)} is not allowed to update fields other than status.capacity and status.conditions: ${changed.join(', ')}`);
    }
  }

  async function admitServiceAccountToken(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = isObject(specOf(a.object).boundObjectRef) ? specOf(a.object).boundObjectRef as Json : undefined;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbid(a, 'node requested token not bound to a pod');
    if (!ref.uid) throw forbid(a, 'node requested token with a pod binding without a uid');
    const pod = await stored(a, 'pods', '', a.namespace, String(ref.name));
    if (ref.uid !== pod.metadata?.uid) {
      throw forbid(a, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (specOf(pod).nodeName !== node) throw forbid(a, 'node requested token bound to a pod scheduled on a different node');
  }

  function admitOwnNamed(node: string, a: AdmissionAttributes, what: string): void {
    const name = a.operation === 'CREATE' ? (a.object?.metadata?.name ?? '') : a.name;
    if (name !== node) throw forbid(a, `can only access ${what} with the same name as the requesting node`);
  }

  return {
    name: 'NodeRestriction',
    resources: ['/pods', '/nodes', '/persistentvolumeclaims', '/serviceaccounts', `${coordination}/leases`, `${storage}/csinodes`],
    async admit(a) {
      const node = nodeNameOf(a);
      if (node === undefined) return undefined;
      if (!node) throw forbid(a, `could not determine node from user ${JSON.stringify(userOf(a).name)}`);
      const { group, resource } = a.resource;
      if (group === '' && resource === 'pods') return admitPod(node, a);
      if (group === '' && resource === 'nodes') return admitNode(node, a);
      if (group === '' && resource === 'persistentvolumeclaims') return admitClaimStatus(node, a);
      if (group === '' && resource === 'serviceaccounts') return admitServiceAccountToken(node, a);
      if (group === coordination && resource === 'leases') {
        if (a.namespace !== naming.nodeLeaseNamespace) {
          throw forbid(a, `can only access leases in the ${JSON.stringify(naming.nodeLeaseNamespace)} system namespace`);
        }
        return admitOwnNamed(node, a, 'node lease');
      }
      if (group === storage && resource === 'csinodes') return admitOwnNamed(node, a, 'CSINode');
      return undefined;
    },
  };
}
