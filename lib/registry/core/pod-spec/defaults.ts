/**
 * Kubernetes' defaults of a Pod (SetObjectDefaults_Pod: SetDefaults_Pod, SetDefaults_PodSpec,
 * SetDefaults_Container, SetDefaults_Probe, SetDefaults_HTTPGetAction, the `+default` markers
 * and SetDefaults_ResourceList) and of a PodSpec elsewhere (defaultPodSpecFields, as
 * SetObjectDefaults_PodTemplate), applied in place and in Kubernetes' order. Volume defaults
 * come from the volume rules.
 */
import { canonicalResourceList } from '../resource-quantities';
import { Json, isObject, record, records, setDefault, text } from '../json-fields';
import { VolumeRules } from '../volumes/volume-list';
import { defaultFieldRef } from '../volumes/downward-api';
import { defaultPullPolicy } from './containers';

/** v1.DefaultSchedulerName. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** v1.TerminationMessagePathDefault. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

/** SetDefaults_Pod: requests default to limits, key by key (regular and init containers only). */
function defaultRequestsFromLimits(c: Json): void {
  const resources = record(c, 'resources');
  const limits = resources && record(resources, 'limits');
  if (!resources || !limits) return;
  const requests = record(resources, 'requests') ?? {};
  for (const [name, value] of Object.entries(limits)) if (!Object.hasOwn(requests, name)) requests[name] = value;
  resources.requests = requests;
}

/** With host networking every container port is also a host port. */
function defaultHostNetworkPorts(c: Json): void {
  for (const port of records(c, 'ports')) {
    if (!port.hostPort) port.hostPort = port.containerPort;
  }
}

function defaultHTTPGet(handler: Json | undefined): void {
  const httpGet = handler && record(handler, 'httpGet');
  if (!httpGet) return;
  if (!text(httpGet, 'path')) httpGet.path = '/';
  if (!text(httpGet, 'scheme')) httpGet.scheme = 'HTTP';
}

function defaultProbe(probe: Json | undefined): void {
  if (!probe) return;
  // Zero means unset for these int32 value fields.
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  defaultHTTPGet(probe);
  const grpc = record(probe, 'grpc');
  if (grpc) setDefault(grpc, 'service', '');
}

function defaultResourceRequirements(resources: Json): void {
  for (const key of ['limits', 'requests']) {
    if (isObject(resources[key])) resources[key] = canonicalResourceList(resources[key]);
  }
}

/** SetDefaults_Container and the defaults of everything a container holds. */
function defaultContainer(c: Json): void {
  if (!text(c, 'imagePullPolicy')) c.imagePullPolicy = defaultPullPolicy(text(c, 'image'));
  if (!text(c, 'terminationMessagePath')) c.terminationMessagePath = DEFAULT_TERMINATION_MESSAGE_PATH;
  if (!text(c, 'terminationMessagePolicy')) c.terminationMessagePolicy = 'File';
  for (const port of records(c, 'ports')) if (!text(port, 'protocol')) port.protocol = 'TCP';
  for (const env of records(c, 'env')) {
    const fieldRef = record(record(env, 'valueFrom') ?? {}, 'fieldRef');
    if (fieldRef) defaultFieldRef(fieldRef);
  }
  // resources is a Go value struct: Kubernetes always writes it, empty or not.
  if (!isObject(c.resources)) c.resources = {};
  defaultResourceRequirements(c.resources as Json);
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(record(c, key));
  const lifecycle = record(c, 'lifecycle');
  if (lifecycle) {
    defaultHTTPGet(record(lifecycle, 'postStart'));
    defaultHTTPGet(record(lifecycle, 'preStop'));
  }
}

/** SetDefaults_PodSpec, plus the serviceAccount alias kept in step with serviceAccountName. */
function defaultPodSpec(spec: Json): void {
  if (!text(spec, 'dnsPolicy')) spec.dnsPolicy = 'ClusterFirst';
  if (!text(spec, 'restartPolicy')) spec.restartPolicy = 'Always';
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  setDefault(spec, 'terminationGracePeriodSeconds', DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  if (!text(spec, 'schedulerName')) spec.schedulerName = DEFAULT_SCHEDULER_NAME;
  // serviceAccount is the deprecated spelling: it fills serviceAccountName and mirrors it.
  if (!text(spec, 'serviceAccountName') && text(spec, 'serviceAccount')) spec.serviceAccountName = spec.serviceAccount;
  if (text(spec, 'serviceAccountName')) spec.serviceAccount = spec.serviceAccountName;
}

function defaultStatusResources(status: Json): void {
  for (const key of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses']) {
    for (const s of records(status, key)) {
      if (isObject(s.allocatedResources)) s.allocatedResources = canonicalResourceList(s.allocatedResources);
      const resources = record(s, 'resources');
      if (resources) defaultResourceRequirements(resources);
    }
  }
}

/**
 * The defaults of a PodSpec wherever it stands (a Pod's spec, a pod template's): SetDefaults_PodSpec
 * and the defaults of its volumes, containers, probes and resource lists, in place. A Pod gets
 * more (defaultPod); a template gets only these, as Kubernetes' SetObjectDefaults_PodTemplate.
 */
export function defaultPodSpecFields(spec: Json, volumes: VolumeRules): void {
  defaultPodSpec(spec);
  volumes.defaults(records(spec, 'volumes'));
  [...records(spec, 'initContainers'), ...records(spec, 'containers'), ...records(spec, 'ephemeralContainers')].forEach(defaultContainer);
  if (isObject(spec.overhead)) spec.overhead = canonicalResourceList(spec.overhead);
  const podResources = record(spec, 'resources');
  if (podResources) defaultResourceRequirements(podResources);
}

/**
 * Every default Kubernetes gives a Pod, in place; `volumes` fills the volume sources' defaults.
 * SetDefaults_Pod's rules (requests from limits, enableServiceLinks, the host ports of
 * hostNetwork) are the Pod's alone: a template does not get them.
 */
export function defaultPod(obj: Json, volumes: VolumeRules): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Json;
  const regular = [...records(spec, 'initContainers'), ...records(spec, 'containers')];
  regular.forEach(defaultRequestsFromLimits);
  setDefault(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) regular.forEach(defaultHostNetworkPorts);
  defaultPodSpecFields(spec, volumes);
  if (isObject(obj.status)) defaultStatusResources(obj.status);
}
