/**
 * RuntimeClass (plugin/pkg/admission/runtimeclass, Kubernetes 1.32), on pod create only. A pod
 * naming spec.runtimeClassName gets its class (watch cache, live read on a miss; unknown:
 * refused). Mutating phase: the class's overhead.podFixed becomes the pod's spec.overhead (a pod
 * that set another overhead is refused), and the class's scheduling is merged in: its
 * nodeSelector into the pod's (a key the pod sets to another value is refused) and its
 * tolerations after the pod's, dropping any another one covers. Validating phase: the pod's
 * overhead must equal the class's, and a pod whose class has no overhead may not set one.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { compareQuantities, tryParseQuantity } from '../../meta/quantity';
import { Json, isObject, objects, podSpec } from '../pod/pod-json';
import { admissionForbidden, isPodWrite } from '../pod/pod-attributes';
import { Toleration, mergeTolerations } from '../pod/tolerations';

/** RuntimeClasses by name (tests hand in their own). */
export interface RuntimeClassSource {
  get(name: string): Promise<ApiObject | undefined>;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;
const record = (o: Json | undefined, key: string): Json | undefined => (o && isObject(o[key]) ? o[key] as Json : undefined);

/** apiequality.Semantic.DeepEqual of two ResourceLists: quantities compared by value, nil and empty alike. */
export function sameResourceList(a: Json | undefined, b: Json | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => {
    if (!b || !Object.hasOwn(b, k)) return false;
    const qa = tryParseQuantity(a![k]);
    const qb = tryParseQuantity(b[k]);
    return qa && qb ? compareQuantities(qa, qb) === 0 : a![k] === b[k];
  });
}

/** The pod's class, undefined when it names none; refused when it names a missing one. */
async function classOf(attrs: AdmissionAttributes, classes: RuntimeClassSource): Promise<ApiObject | undefined> {
  const spec = podSpec(attrs.object);
  if (typeof spec.runtimeClassName !== 'string') return undefined;
  const rc = await classes.get(spec.runtimeClassName);
  if (!rc) throw admissionForbidden(attrs, `pod rejected: RuntimeClass ${JSON.stringify(spec.runtimeClassName)} not found`);
  return rc;
}

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

function setOverhead(attrs: AdmissionAttributes, spec: Json, rc: ApiObject): void {
  const overhead = record(rc as Json, 'overhead');
  if (!overhead) return;
  const podFixed = record(overhead, 'podFixed');
  if (present(spec.overhead) && !sameResourceList(podFixed, record(spec, 'overhead'))) throw admissionForbidden(attrs, OVERHEAD_MISMATCH);
  if (podFixed) spec.overhead = { ...podFixed };
  else delete spec.overhead;
}

function setScheduling(attrs: AdmissionAttributes, spec: Json, rc: ApiObject): void {
  const scheduling = record(rc as Json, 'scheduling');
  if (!scheduling) return;
  const classSelector = record(scheduling, 'nodeSelector');
  const podSelector = record(spec, 'nodeSelector');
  if (!podSelector) {
    if (classSelector) spec.nodeSelector = { ...classSelector };
  } else {
    for (const [key, value] of Object.entries(classSelector ?? {})) {
      if (Object.hasOwn(podSelector, key) && podSelector[key] !== value) {
        throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podSelector[key])}`);
      }
      podSelector[key] = value;
    }
  }
  const merged = mergeTolerations(objects(spec, 'tolerations') as Toleration[], objects(scheduling, 'tolerations') as Toleration[]);
  if (merged.length) spec.tolerations = merged;
  else delete spec.tolerations;
}

/** validateOverhead. */
function checkOverhead(attrs: AdmissionAttributes, spec: Json, rc: ApiObject | undefined): void {
  const overhead = rc && record(rc as Json, 'overhead');
  if (overhead) {
    if (!sameResourceList(record(overhead, 'podFixed'), record(spec, 'overhead'))) throw admissionForbidden(attrs, OVERHEAD_MISMATCH);
  } else if (present(spec.overhead)) {
    throw admissionForbidden(attrs, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  }
}

export function runtimeClassPlugin(classes: RuntimeClassSource): AdmissionPlugin {
  const applies = (a: AdmissionAttributes) => a.operation === 'CREATE' && isPodWrite(a);
  return {
    name: 'RuntimeClass',
    resources: ['/pods'],
    async admit(attrs) {
      if (!applies(attrs)) return;
      const rc = await classOf(attrs, classes);
      if (!rc) return;
      const spec = podSpec(attrs.object, true);
      setOverhead(attrs, spec, rc);
      setScheduling(attrs, spec, rc);
    },
    async validate(attrs) {
      if (!applies(attrs)) return;
      checkOverhead(attrs, podSpec(attrs.object), await classOf(attrs, classes));
    },
  };
}
