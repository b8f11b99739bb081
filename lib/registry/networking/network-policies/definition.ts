/**
 * NetworkPolicy (networking.k8s.io/v1, namespaced, short name `netpol`): which traffic the pods
 * a selector picks may receive and send. Defaults (port protocol TCP, policyTypes from the
 * rules) are applied on create and update; spec changes bump metadata.generation. No status
 * (Kubernetes removed it in 1.28). kubectl's NAME POD-SELECTOR AGE table.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { formatLabelSelector } from '../../../meta/label-format';
import { semanticEqual } from '../../core/semantic-equal';
import { networkPolicySchema } from './schema';
import { allowInvalidLabelValue, defaultNetworkPolicy, networkPolicySpecOf, validateNetworkPolicySpec } from './validation';

const KIND = 'NetworkPolicy';

/** printNetworkPolicy: the pod selector as a label selector string (`<none>` when empty). */
const networkPolicyTable: TableColumns = {
  columns: [
    nameColumn,
    column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '', formatLabelSelector(networkPolicySpecOf(obj as ApiObject).podSelector ?? {}),
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

export function networkPolicyResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('networking'), version: 'v1', kind: KIND, listKind: 'NetworkPolicyList',
    resource: 'networkpolicies', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: networkPolicySchema,
    table: networkPolicyTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, networkPolicySchema, KIND),
      default: defaultNetworkPolicy,
      prepareForCreate: (obj) => { defaultNetworkPolicy(obj); delete obj.status; },
      prepareForUpdate: (obj) => { defaultNetworkPolicy(obj); delete obj.status; },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateNetworkPolicySpec(networkPolicySpecOf(obj)),
      validateUpdate: (obj, old) => validateNetworkPolicySpec(networkPolicySpecOf(obj), { allowInvalidLabelValue: allowInvalidLabelValue(old) }),
    },
  };
}
