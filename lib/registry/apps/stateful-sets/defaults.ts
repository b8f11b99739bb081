/**
 * Kubernetes 1.32's defaults of an apps/v1 StatefulSet (SetObjectDefaults_StatefulSet and
 * SetDefaults_StatefulSet), in place: podManagementPolicy OrderedReady; updateStrategy
 * RollingUpdate with partition 0 (maxUnavailable stays unset: the MaxUnavailableStatefulSet gate
 * is alpha and off); the claims' retention policy Retain/Retain (StatefulSetAutoDeletePVC is GA);
 * replicas 1; revisionHistoryLimit 10; the pod template's defaults; and every claim template's
 * (phase Pending, volumeMode Filesystem, quantities canonical, ObjectMeta's zero timestamp).
 * Also the fields Go always writes: serviceName, ordinals.start and status.replicas/availableReplicas.
 */
import { Json, isObject } from '../../core/json-fields';
import { defaultPodTemplateSpec } from '../../core/pod-template';
import { VolumeRules } from '../../core/volumes/volume-list';
import { canonicalResourceList } from '../../core/resource-quantities';

const absent = (v: unknown): boolean => v === undefined || v === null;

/** The spec, created when absent (Go's value struct). */
export function specOf(obj: Json): Json {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
}

/** SetDefaults_PersistentVolumeClaim and its spec's defaults, for one claim template. */
function defaultClaimTemplate(claim: Json): void {
  if (!isObject(claim.metadata)) claim.metadata = {};
  const meta = claim.metadata as Json;
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  if (!isObject(claim.spec)) claim.spec = {};
  const spec = claim.spec as Json;
  if (absent(spec.volumeMode)) spec.volumeMode = 'Filesystem';
  if (isObject(spec.resources)) {
    const resources = spec.resources as Json;
    for (const k of ['limits', 'requests']) if (isObject(resources[k])) resources[k] = canonicalResourceList(resources[k]);
  }
  if (!isObject(claim.status)) claim.status = {};
  const status = claim.status as Json;
  if (!status.phase) status.phase = 'Pending';
}

/** The defaults, in place. */
export function defaultStatefulSet(obj: Json, volumes: VolumeRules): void {
  const spec = specOf(obj);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy as Json;
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    if (absent(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) {
    const rolling = strategy.rollingUpdate as Json;
    if (absent(rolling.partition)) rolling.partition = 0;
  }
  if (!isObject(spec.persistentVolumeClaimRetentionPolicy)) spec.persistentVolumeClaimRetentionPolicy = {};
  const retention = spec.persistentVolumeClaimRetentionPolicy as Json;
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  if (absent(spec.replicas)) spec.replicas = 1;
  if (absent(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  // `serviceName` has no omitempty in 1.32: Go writes it even when empty.
  if (absent(spec.serviceName)) spec.serviceName = '';
  // ordinals.start has no omitempty either: a given ordinals struct is written with its zero.
  if (isObject(spec.ordinals) && absent((spec.ordinals as Json).start)) (spec.ordinals as Json).start = 0;
  defaultPodTemplateSpec(spec, 'template', volumes);
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const claim of spec.volumeClaimTemplates) if (isObject(claim)) defaultClaimTemplate(claim);
  }
}

/** Whether the rolling update's maxUnavailable is set (the gate's "already in use" test). */
export function maxUnavailableInUse(obj: Json | undefined): boolean {
  const strategy = obj && isObject(obj.spec) ? (obj.spec as Json).updateStrategy : undefined;
  const rolling = isObject(strategy) ? strategy.rollingUpdate : undefined;
  return isObject(rolling) && !absent(rolling.maxUnavailable);
}

/**
 * dropStatefulSetDisabledFields: without the MaxUnavailableStatefulSet gate, a new
 * rollingUpdate.maxUnavailable is dropped unless the stored object already uses it.
 */
export function dropDisabledFields(obj: Json, old: Json | undefined, maxUnavailableGate: boolean): void {
  if (maxUnavailableGate || maxUnavailableInUse(old)) return;
  const strategy = specOf(obj).updateStrategy;
  const rolling = isObject(strategy) ? strategy.rollingUpdate : undefined;
  if (isObject(rolling)) delete rolling.maxUnavailable;
}

/** The status as Go writes it: replicas and availableReplicas (no omitempty) always present. */
export function normalizeStatus(status: Json): Json {
  const out: Json = { ...status };
  out.replicas ??= 0;
  out.availableReplicas ??= 0;
  for (const [k, v] of Object.entries(out)) {
    if (v === null || (Array.isArray(v) && v.length === 0) || v === '') delete out[k];
    else if (typeof v === 'number' && v === 0 && k !== 'replicas' && k !== 'availableReplicas' && k !== 'collisionCount') delete out[k];
  }
  return out;
}
