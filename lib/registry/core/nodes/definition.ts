/**
 * Node (core/v1, cluster-scoped, short name `no`): a machine a kubelet runs pods on. Nodes, unlike
 * other kinds, may be created with their status (a kubelet registers with what it sees); after
 * that, status changes only through `/status`, which keeps the spec, and a write to the Node keeps
 * the stored status. The removed dynamic-config source is dropped (on create, and on update unless
 * already set); pod CIDRs and the provider ID are set once; externalID never changes. DELETE
 * answers a Status, as kube-apiserver's node storage does. Field selector: `spec.unschedulable`.
 *
 * Not here: `nodes/proxy` (the kubelet connections), the node lifecycle controller
 * (kube-controller-manager), and the admission plugins acting on nodes (lib/admission/nodes/).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { Json, isObject, text } from '../json-fields';
import { nodeSchema } from './schema';
import { nodeTable } from './table';
import { defaultNode, normalizeNodeStatus, specOf, validateNode, validateNodeUpdate } from './validation';

const KIND = 'Node';

/**
 * dropDisabledFields: spec.configSource and status.config are dropped on create, configSource on
 * an update that did not have it; status.features while SupplementalGroupsPolicy is off, unless
 * the stored node has it.
 */
function dropDisabledFields(obj: ApiObject, old: ApiObject | undefined, gates: FeatureGates): void {
  const spec = specOf(obj);
  const status = isObject(obj.status) ? obj.status : {};
  if (!old) {
    delete spec.configSource;
    delete status.config;
  } else if (!isObject(specOf(old).configSource)) {
    delete spec.configSource;
  }
  const oldStatus = old && isObject(old.status) ? old.status : {};
  if (!gates.enabled('SupplementalGroupsPolicy') && !isObject(oldStatus.features)) delete status.features;
}

export function nodeResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'NodeList', resource: 'nodes', singular: 'node',
    namespaced: false, shortNames: ['no'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status, current) => {
      const out = normalizeNodeStatus(status);
      const stored = isObject(current.status) ? current.status : {};
      if (!gates.enabled('SupplementalGroupsPolicy') && !isObject(stored.features)) delete out.features;
      return out;
    })],
    deleteReturnsStatus: true,
    nameValidation: 'dns-subdomain',
    schema: nodeSchema,
    table: nodeTable(naming),
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, nodeSchema, KIND),
      default: (obj) => defaultNode(obj),
      // Nodes allow every field, status included, to be set on create.
      prepareForCreate: (obj, ctx) => {
        defaultNode(obj);
        dropDisabledFields(obj, undefined, gates);
        if (text(specOf(obj), 'externalID')) ctx.warn?.('spec.externalID: this field is deprecated, and is unused by Kubernetes');
      },
      prepareForUpdate: (obj, old) => {
        obj.status = old.status;
        defaultNode(obj);
        dropDisabledFields(obj, old, gates);
      },
      validate: (obj) => validateNode(obj),
      validateUpdate: (obj, old) => [...validateNode(obj), ...validateNodeUpdate(obj, old)],
      fieldSet: (obj) => ({ 'spec.unschedulable': String((specOf(obj) as Json).unschedulable === true) }),
      selectableFields: ['spec.unschedulable'],
    },
  };
}
