/**
 * Priority (plugin/pkg/admission/priority, Kubernetes 1.32). On pod create: the pod's
 * `priorityClassName` is resolved through the PriorityClasses (watch cache, live read on a miss)
 * into `spec.priority` and `spec.preemptionPolicy`; a pod without a class gets the globalDefault
 * class (its name too) or priority 0 and PreemptLowerPriority when there is none; an unknown class
 * and a priority or policy the pod sets that differs from the computed one are refused with
 * Kubernetes' sentences. The system classes are ordinary stored classes, usable in any
 * namespace (Kubernetes 1.17 and later). On pod update the stored values are kept when the new
 * object omits them (validation forbids changing them). On PriorityClass create and update: a
 * class marked globalDefault is refused while another class is the default.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { podSpec, str } from './pod-json';
import { admissionForbidden, isPodWrite } from './pod-attributes';
import { admissionForbidden as objectForbidden } from '../resources/admission-forbidden';
import { PriorityClassSource } from './priority-classes';

const PREEMPT_LOWER = 'PreemptLowerPriority';
/** DefaultPriorityWhenNoDefaultClassExists. */
const DEFAULT_PRIORITY = 0;

interface ClassFields { name: string; value: number; globalDefault: boolean; preemptionPolicy?: string }

function fieldsOf(pc: ApiObject): ClassFields {
  const o = pc as Record<string, unknown>;
  return {
    name: pc.metadata?.name ?? '',
    value: typeof o.value === 'number' ? o.value : 0,
    globalDefault: o.globalDefault === true,
    preemptionPolicy: typeof o.preemptionPolicy === 'string' ? o.preemptionPolicy : undefined,
  };
}

/** getDefaultPriorityClass: of several defaults (a race), the one with the lowest value. */
async function defaultClass(classes: PriorityClassSource, live = false): Promise<ClassFields | undefined> {
  let found: ClassFields | undefined;
  for (const pc of (await classes.list(live)).map(fieldsOf)) {
    if (pc.globalDefault && (!found || found.value > pc.value)) found = pc;
  }
  return found;
}

async function admitPodCreate(attrs: AdmissionAttributes, classes: PriorityClassSource): Promise<void> {
  const spec = podSpec(attrs.object, true);
  const className = str(spec, 'priorityClassName');
  let priority = DEFAULT_PRIORITY;
  let policy: string | undefined = PREEMPT_LOWER;
  if (!className) {
    const dpc = await defaultClass(classes);
    if (dpc) {
      spec.priorityClassName = dpc.name;
      priority = dpc.value;
      policy = dpc.preemptionPolicy;
    }
  } else {
    const pc = await classes.get(className);
    if (!pc) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
    ({ value: priority, preemptionPolicy: policy } = fieldsOf(pc));
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    throw admissionForbidden(attrs, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (policy === undefined) return;
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
    throw admissionForbidden(attrs, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
  }
  spec.preemptionPolicy = policy;
}

/** The plugin; `schedulingGroup` is the flavor's scheduling group (`scheduling.k8s.io`). */
export function priorityPlugin(classes: PriorityClassSource, schedulingGroup: string): AdmissionPlugin {
  const isClassWrite = (a: AdmissionAttributes) =>
    a.resource.group === schedulingGroup && a.resource.resource === 'priorityclasses' && !a.subresource && !!a.object;
  return {
    name: 'Priority',
    resources: ['/pods', `${schedulingGroup}/priorityclasses`],
    async admit(attrs) {
      if (!isPodWrite(attrs)) return;
      if (attrs.operation === 'UPDATE') {
        const spec = podSpec(attrs.object, true);
        const old = podSpec(attrs.oldObject);
        if ((spec.priority === undefined || spec.priority === null) && typeof old.priority === 'number') spec.priority = old.priority;
        if (!spec.preemptionPolicy && typeof old.preemptionPolicy === 'string') spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (attrs.operation === 'CREATE') await admitPodCreate(attrs, classes);
    },
    async validate(attrs) {
      if (!isClassWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
      const pc = fieldsOf(attrs.object as ApiObject);
      if (!pc.globalDefault) return;
      const dpc = await defaultClass(classes, true);
      if (dpc && (attrs.operation === 'CREATE' || dpc.name !== pc.name)) {
        throw objectForbidden(attrs, `PriorityClass ${dpc.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
