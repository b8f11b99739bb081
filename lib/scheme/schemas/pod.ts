/**
 * Schema of Pod (core/v1) with the fields a workload needs here: containers (name, image,
 * command, env, volume mounts), volumes, the service account, the node and image pull secrets,
 * and a status. List markers follow Kubernetes' types.go: containers, env, volumes and
 * imagePullSecrets are maps keyed by name, volumeMounts by mountPath, conditions by type.
 */
import { Schema, atomicList, bool, int32, int64, mapList, object, str, time } from '../schema';
import { kindSchema } from './meta';
import { localObjectReference, objectFieldSelector, resourceFieldSelector, volume } from './volume';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

const keySelector = (what: string): Schema => object({
  name: str(`Name of the ${what} in the workload's namespace.`),
  key: str(`The key of the ${what} to select.`),
  optional: bool(`Whether the ${what} or its key must be defined.`),
}, { required: ['key'], ...atomic });

export const envVar: Schema = object({
  name: str('Name of the environment variable.'),
  value: str('Value of the variable; $(VAR_NAME) references are expanded.'),
  valueFrom: object({
    fieldRef: objectFieldSelector,
    resourceFieldRef: resourceFieldSelector,
    configMapKeyRef: keySelector('ConfigMap'),
    secretKeyRef: keySelector('Secret'),
  }),
}, { required: ['name'] });

export const volumeMount: Schema = object({
  name: str('This must match the name of a volume.'),
  readOnly: bool('Mounted read-only if true, read-write otherwise (false or unspecified).'),
  mountPath: str('Path within the container at which the volume should be mounted; must not contain ":".'),
  subPath: str('Path within the volume from which the container\'s volume should be mounted.'),
  subPathExpr: str('Expanded path within the volume; mutually exclusive with subPath.'),
  mountPropagation: str('How mounts are propagated: None (default), HostToContainer or Bidirectional.'),
}, { required: ['name', 'mountPath'] });

export const container: Schema = object({
  name: str('Name of the container: a DNS label, unique within the workload.'),
  image: str('Container image name.'),
  command: atomicList(str(), 'Entrypoint array; the image\'s ENTRYPOINT when not provided.'),
  args: atomicList(str(), 'Arguments to the entrypoint; the image\'s CMD when not provided.'),
  workingDir: str('Container\'s working directory.'),
  env: mapList(envVar, ['name'], 'List of environment variables to set in the container.'),
  volumeMounts: mapList(volumeMount, ['mountPath'], 'Volumes to mount into the container\'s filesystem.'),
  imagePullPolicy: str('Always, Never or IfNotPresent; Always for a :latest or untagged image, else IfNotPresent.'),
}, { required: ['name'] });

const containerStateFields = {
  waiting: object({ reason: str(), message: str() }),
  running: object({ startedAt: time() }),
  terminated: object({
    exitCode: int32(), signal: int32(), reason: str(), message: str(),
    startedAt: time(), finishedAt: time(), containerID: str(),
  }, { required: ['exitCode'] }),
};

const containerStatus: Schema = object({
  name: str(),
  state: object(containerStateFields),
  lastState: object(containerStateFields),
  ready: bool(),
  restartCount: int32(),
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool(),
}, { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] });

const podCondition: Schema = object({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastProbeTime: time(),
  lastTransitionTime: time(),
  reason: str(),
  message: str(),
}, { required: ['type', 'status'] });

const ip: Schema = object({ ip: str('An IP address.') }, { required: ['ip'] });

export const podSpec: Schema = object({
  volumes: {
    ...mapList(volume, ['name'], 'Volumes that can be mounted by containers belonging to the workload.'),
    'x-kubernetes-patch-strategy': 'merge,retainKeys',
  },
  containers: mapList(container, ['name'], 'Containers of the workload; at least one.'),
  restartPolicy: str('Always (default), OnFailure or Never.'),
  terminationGracePeriodSeconds: int64('Seconds the workload needs to terminate gracefully; default 30.'),
  dnsPolicy: str('ClusterFirst (default), ClusterFirstWithHostNet, Default or None.'),
  serviceAccountName: str('Name of the ServiceAccount to run the workload as.'),
  serviceAccount: str('Deprecated alias of serviceAccountName.'),
  automountServiceAccountToken: bool('Whether a service account token should be mounted automatically.'),
  nodeName: str('The node this workload is bound to.'),
  imagePullSecrets: mapList(localObjectReference, ['name'], 'Secrets in the same namespace used to pull the images.'),
}, { required: ['containers'] });

export const podStatus: Schema = object({
  phase: str('Pending, Running, Succeeded, Failed or Unknown.'),
  conditions: mapList(podCondition, ['type'], 'Current service state of the workload.'),
  message: str(),
  reason: str(),
  nominatedNodeName: str(),
  hostIP: str(),
  hostIPs: { ...atomicList(ip), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'ip' },
  podIP: str(),
  podIPs: mapList(ip, ['ip']),
  startTime: time(),
  containerStatuses: atomicList(containerStatus),
  qosClass: str('Guaranteed, Burstable or BestEffort.'),
});

export const podSchema: Schema = kindSchema({ spec: podSpec, status: podStatus },
  'Pod is a collection of containers that can run on a host. Here it is stored and validated; nothing runs it.');
