/**
 * Which kinds have protobuf, and their messages. One line per group version: its apiVersion(s),
 * its proto package and its kinds; each kind's `<Kind>List` comes with it. Adding a kind is
 * adding its messages to proto/ and its name to a line here.
 */
import { Type } from 'protobufjs';
import { flavors, metaGroups } from '../../naming';
import { loadProtoRoot } from './loader';

interface GroupVersionLine {
  apiVersions: string[];
  /** The proto package of the kinds' messages. */
  protoPackage: string;
  kinds: string[];
  /** Whether each kind has a `<Kind>List` message too. */
  lists: boolean;
}

const CORE = 'k8s.io.api.core.v1';
const STORAGE = 'k8s.io.api.storage.v1';
const AUTHENTICATION = 'k8s.io.api.authentication.v1';
const AUTHORIZATION = 'k8s.io.api.authorization.v1';
const RBAC = 'k8s.io.api.rbac.v1';
const COORDINATION = 'k8s.io.api.coordination.v1';
const APPS = 'k8s.io.api.apps.v1';
const CERTIFICATES = 'k8s.io.api.certificates.v1';
const ADMISSIONREGISTRATION = 'k8s.io.api.admissionregistration';
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const POLICY = 'k8s.io.api.policy.v1';
const BATCH = 'k8s.io.api.batch.v1';
const AUTOSCALING_V2 = 'k8s.io.api.autoscaling.v2';
const AUTOSCALING_V1 = 'k8s.io.api.autoscaling.v1';
const META_V1BETA1 = 'k8s.io.apimachinery.pkg.apis.meta.v1beta1';
const metaVersion = (v: string) => metaGroups.map((g) => `${g}/${v}`);
/** A named group's version in both flavors' spellings (`storage.orch.io/v1`, `storage.k8s.io/v1`). */
const groupVersion = (short: string, v: string) => Object.values(flavors).map((f) => `${f.group(short)}/${v}`);

const GROUP_VERSIONS: GroupVersionLine[] = [
  {
    apiVersions: ['v1'], protoPackage: CORE, lists: true,
    kinds: ['ConfigMap', 'Event', 'Namespace', 'PersistentVolume', 'PersistentVolumeClaim', 'Pod', 'PodTemplate', 'Secret', 'ServiceAccount'],
  },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['ReplicationController'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['Node'] },
  // The body of pods/binding and bindings.
  { apiVersions: ['v1'], protoPackage: CORE, lists: false, kinds: ['Binding'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['ComponentStatus'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['Endpoints'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['LimitRange'] },
  { apiVersions: groupVersion('discovery', 'v1'), protoPackage: 'k8s.io.api.discovery.v1', lists: true, kinds: ['EndpointSlice'] },
  // discovery v1beta1 EndpointSlice (off unless --runtime-config switches it on).
  { apiVersions: groupVersion('discovery', 'v1beta1'), protoPackage: 'k8s.io.api.discovery.v1beta1', lists: true, kinds: ['EndpointSlice'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['Service'] },
  { apiVersions: ['v1'], protoPackage: CORE, lists: true, kinds: ['ResourceQuota'] },
  {
    apiVersions: groupVersion('storage', 'v1'), protoPackage: STORAGE, lists: true,
    kinds: ['CSIDriver', 'CSINode', 'CSIStorageCapacity', 'StorageClass', 'VolumeAttachment'],
  },
  // storage v1beta1 (off unless --runtime-config switches it on): v1's Go types, so v1's messages.
  {
    apiVersions: groupVersion('storage', 'v1beta1'), protoPackage: STORAGE, lists: true,
    kinds: ['CSIDriver', 'CSINode', 'CSIStorageCapacity', 'StorageClass', 'VolumeAttachment'],
  },
  {
    apiVersions: groupVersion('rbac.authorization', 'v1'), protoPackage: RBAC, lists: true,
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  },
  // rbac v1beta1 (off unless --runtime-config switches it on): v1's Go types, so v1's messages.
  {
    apiVersions: groupVersion('rbac.authorization', 'v1beta1'), protoPackage: RBAC, lists: true,
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  },
  { apiVersions: groupVersion('coordination', 'v1'), protoPackage: COORDINATION, lists: true, kinds: ['Lease'] },
  // coordination v1beta1 Lease (off unless --runtime-config switches it on).
  { apiVersions: groupVersion('coordination', 'v1beta1'), protoPackage: 'k8s.io.api.coordination.v1beta1', lists: true, kinds: ['Lease'] },
  // apps has no domain: `apps/v1` in both flavors.
  { apiVersions: ['apps/v1'], protoPackage: APPS, lists: true, kinds: ['ControllerRevision'] },
  { apiVersions: ['apps/v1'], protoPackage: APPS, lists: true, kinds: ['DaemonSet', 'StatefulSet'] },
  { apiVersions: ['apps/v1'], protoPackage: APPS, lists: true, kinds: ['Deployment', 'ReplicaSet'] },
  // The removed workload versions (off unless --runtime-config switches them on): apps/v1's
  // messages where Kubernetes' fields and numbers are apps/v1's, their own where they differ.
  { apiVersions: ['apps/v1beta2'], protoPackage: APPS, lists: true, kinds: ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'] },
  { apiVersions: ['apps/v1beta1'], protoPackage: APPS, lists: true, kinds: ['ControllerRevision', 'StatefulSet'] },
  { apiVersions: ['apps/v1beta1'], protoPackage: 'k8s.io.api.apps.v1beta1', lists: true, kinds: ['Deployment'] },
  { apiVersions: ['extensions/v1beta1'], protoPackage: 'k8s.io.api.extensions.v1beta1', lists: true, kinds: ['DaemonSet', 'Deployment'] },
  { apiVersions: ['extensions/v1beta1'], protoPackage: APPS, lists: true, kinds: ['ReplicaSet'] },
  { apiVersions: ['extensions/v1beta1'], protoPackage: 'k8s.io.api.networking.v1', lists: true, kinds: ['NetworkPolicy'] },
  // Their /scale bodies: one message, the same fields and numbers in the three group versions.
  { apiVersions: ['apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'], protoPackage: 'k8s.io.api.apps.v1beta1', lists: false, kinds: ['Scale'] },
  { apiVersions: groupVersion('certificates', 'v1'), protoPackage: CERTIFICATES, lists: true, kinds: ['CertificateSigningRequest'] },
  { apiVersions: groupVersion('certificates', 'v1beta1'), protoPackage: 'k8s.io.api.certificates.v1beta1', lists: true, kinds: ['CertificateSigningRequest'] },
  { apiVersions: groupVersion('apiextensions', 'v1'), protoPackage: APIEXTENSIONS, lists: true, kinds: ['CustomResourceDefinition'] },
  { apiVersions: groupVersion('apiextensions', 'v1beta1'), protoPackage: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1beta1', lists: true, kinds: ['CustomResourceDefinition'] },
  // The policy group has no domain: `policy/v1` in both flavors.
  { apiVersions: ['policy/v1'], protoPackage: POLICY, lists: true, kinds: ['PodDisruptionBudget'] },
  // The batch group has no domain: `batch/v1` in both flavors.
  { apiVersions: ['batch/v1'], protoPackage: BATCH, lists: true, kinds: ['CronJob', 'Job'] },
  // batch/v1beta1 CronJob (off unless --runtime-config switches it on).
  { apiVersions: ['batch/v1beta1'], protoPackage: 'k8s.io.api.batch.v1beta1', lists: true, kinds: ['CronJob'] },
  // The autoscaling group has no domain: `autoscaling/v2` and `autoscaling/v1` in both flavors.
  { apiVersions: ['autoscaling/v2'], protoPackage: AUTOSCALING_V2, lists: true, kinds: ['HorizontalPodAutoscaler'] },
  { apiVersions: ['autoscaling/v1'], protoPackage: AUTOSCALING_V1, lists: true, kinds: ['HorizontalPodAutoscaler'] },
  // autoscaling v2beta2 (v2's fields and numbers: v2's messages) and v2beta1 (its own), off unless --runtime-config switches them on.
  { apiVersions: ['autoscaling/v2beta2'], protoPackage: AUTOSCALING_V2, lists: true, kinds: ['HorizontalPodAutoscaler'] },
  { apiVersions: ['autoscaling/v2beta1'], protoPackage: 'k8s.io.api.autoscaling.v2beta1', lists: true, kinds: ['HorizontalPodAutoscaler'] },
  // Scale, the body of every /scale subresource, has no list.
  { apiVersions: ['autoscaling/v1'], protoPackage: AUTOSCALING_V1, lists: false, kinds: ['Scale'] },
  // The body of pods/eviction, at both versions.
  { apiVersions: ['policy/v1'], protoPackage: POLICY, lists: false, kinds: ['Eviction'] },
  { apiVersions: ['policy/v1beta1'], protoPackage: 'k8s.io.api.policy.v1beta1', lists: false, kinds: ['Eviction'] },
  // policy/v1beta1 PodDisruptionBudget (off unless --runtime-config switches it on).
  { apiVersions: ['policy/v1beta1'], protoPackage: 'k8s.io.api.policy.v1beta1', lists: true, kinds: ['PodDisruptionBudget'] },
  // API priority and fairness: flowcontrol.apiserver.k8s.io/v1 (flowcontrol.apiserver.orch.io/v1 in the orch flavor).
  { apiVersions: groupVersion('flowcontrol.apiserver', 'v1'), protoPackage: 'k8s.io.api.flowcontrol.v1', lists: true, kinds: ['FlowSchema', 'PriorityLevelConfiguration'] },
  // Its v1beta1, v1beta2 and v1beta3 (off unless --runtime-config switches them on); v1beta2's fields are
  // v1beta1's (assuredConcurrencyShares), so it is read and written with v1beta1's messages.
  ...[['v1beta1', 'v1beta1'], ['v1beta2', 'v1beta1'], ['v1beta3', 'v1beta3']].map(([v, messages]) => ({
    apiVersions: groupVersion('flowcontrol.apiserver', v), protoPackage: `k8s.io.api.flowcontrol.${messages}`, lists: true, kinds: ['FlowSchema', 'PriorityLevelConfiguration'],
  })),
  ...['v1', 'v1beta1'].map((v) => ({
    apiVersions: groupVersion('admissionregistration', v), protoPackage: `${ADMISSIONREGISTRATION}.${v}`, lists: true,
    kinds: ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  })),
  {
    apiVersions: groupVersion('admissionregistration', 'v1'), protoPackage: `${ADMISSIONREGISTRATION}.v1`, lists: true,
    kinds: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
  },
  // Request-and-answer kinds, never listed.
  {
    apiVersions: groupVersion('authentication', 'v1'), protoPackage: AUTHENTICATION, lists: false,
    kinds: ['SelfSubjectReview', 'TokenRequest', 'TokenReview'],
  },
  {
    apiVersions: groupVersion('authorization', 'v1'), protoPackage: AUTHORIZATION, lists: false,
    kinds: ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  },
  // The v1beta1 reviews (off unless --runtime-config switches them on).
  { apiVersions: groupVersion('authentication', 'v1beta1'), protoPackage: 'k8s.io.api.authentication.v1beta1', lists: false, kinds: ['TokenReview'] },
  {
    apiVersions: groupVersion('authorization', 'v1beta1'), protoPackage: 'k8s.io.api.authorization.v1beta1', lists: false,
    kinds: ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  },
  { apiVersions: metaVersion('v1'), protoPackage: META, kinds: ['PartialObjectMetadata', 'PartialObjectMetadataList'], lists: false },
  // v1beta1 reuses v1's PartialObjectMetadata and has a list message of its own.
  { apiVersions: metaVersion('v1beta1'), protoPackage: META, kinds: ['PartialObjectMetadata'], lists: false },
  { apiVersions: metaVersion('v1beta1'), protoPackage: META_V1BETA1, kinds: ['PartialObjectMetadataList'], lists: false },
  // networking.k8s.io/v1 (networking.orch.io/v1 in the orch flavor).
  { apiVersions: groupVersion('networking', 'v1'), protoPackage: 'k8s.io.api.networking.v1', lists: true, kinds: ['Ingress', 'IngressClass', 'NetworkPolicy'] },
  // networking v1beta1 Ingress and IngressClass, and extensions/v1beta1 Ingress (no domain in either
  // flavor), served over networking v1's objects (off unless --runtime-config switches them on).
  { apiVersions: groupVersion('networking', 'v1beta1'), protoPackage: 'k8s.io.api.networking.v1beta1', lists: true, kinds: ['Ingress', 'IngressClass'] },
  // extensions/v1beta1 Ingress has networking v1beta1's Go types: its messages.
  { apiVersions: ['extensions/v1beta1'], protoPackage: 'k8s.io.api.networking.v1beta1', lists: true, kinds: ['Ingress'] },
  // scheduling.k8s.io/v1 (scheduling.orch.io/v1 in the orch flavor).
  { apiVersions: groupVersion('scheduling', 'v1'), protoPackage: 'k8s.io.api.scheduling.v1', lists: true, kinds: ['PriorityClass'] },
  { apiVersions: groupVersion('scheduling', 'v1beta1'), protoPackage: 'k8s.io.api.scheduling.v1beta1', lists: true, kinds: ['PriorityClass'] },
  // node.k8s.io/v1 (node.orch.io/v1 in the orch flavor).
  { apiVersions: groupVersion('node', 'v1'), protoPackage: 'k8s.io.api.node.v1', lists: true, kinds: ['RuntimeClass'] },
  { apiVersions: groupVersion('node', 'v1beta1'), protoPackage: 'k8s.io.api.node.v1beta1', lists: true, kinds: ['RuntimeClass'] },
  // apiregistration.k8s.io/v1 (apiregistration.orch.io/v1 in the orch flavor): kube-aggregator's package.
  { apiVersions: groupVersion('apiregistration', 'v1'), protoPackage: 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1', lists: true, kinds: ['APIService'] },
  { apiVersions: groupVersion('apiregistration', 'v1beta1'), protoPackage: 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1beta1', lists: true, kinds: ['APIService'] },
  // events.k8s.io/v1 (events.orch.io/v1 in the orch flavor), served over the core/v1 Events.
  { apiVersions: groupVersion('events', 'v1'), protoPackage: 'k8s.io.api.events.v1', lists: true, kinds: ['Event'] },
  // events v1beta1 (off unless --runtime-config switches it on).
  { apiVersions: groupVersion('events', 'v1beta1'), protoPackage: 'k8s.io.api.events.v1beta1', lists: true, kinds: ['Event'] },
];

/** Kinds every group version has (Kubernetes' AddToGroupVersion), whatever the apiVersion. */
const IN_EVERY_VERSION: Record<string, string> = {
  Status: `${META}.Status`,
  DeleteOptions: `${META}.DeleteOptions`,
};

let byKind: Map<string, string> | undefined;

function index(): Map<string, string> {
  if (byKind) return byKind;
  const map = new Map<string, string>();
  for (const line of GROUP_VERSIONS) {
    for (const kind of line.kinds) {
      for (const apiVersion of line.apiVersions) {
        map.set(`${apiVersion}|${kind}`, `${line.protoPackage}.${kind}`);
        if (line.lists) map.set(`${apiVersion}|${kind}List`, `${line.protoPackage}.${kind}List`);
      }
    }
  }
  byKind = map;
  return map;
}

function messageName(apiVersion: string | undefined, kind: string | undefined): string | undefined {
  if (!kind) return undefined;
  return IN_EVERY_VERSION[kind] ?? (apiVersion ? index().get(`${apiVersion}|${kind}`) : undefined);
}

/** Whether objects of this kind can be written in protobuf (false e.g. for custom resources and Table). */
export function hasProtobuf(apiVersion: string | undefined, kind: string | undefined): boolean {
  return messageName(apiVersion, kind) !== undefined;
}

/** The message type of a kind, or undefined when the kind has no protobuf. */
export function kindMessageType(apiVersion: string | undefined, kind: string | undefined): Type | undefined {
  const name = messageName(apiVersion, kind);
  return name ? loadProtoRoot().lookupType(name) : undefined;
}

/** Every registered kind's message name, for start-up checks and tests. */
export function registeredMessageNames(): string[] {
  return [...new Set([...index().values(), ...Object.values(IN_EVERY_VERSION)])];
}
