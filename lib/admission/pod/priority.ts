/**
 * Priority: resolves a new pod's `spec.priority` and `spec.preemptionPolicy` from its
 * `priorityClassName`. PriorityClass is not served here, so the classes are Kubernetes'
 * built-in ones (`system-node-critical`, `system-cluster-critical`, usable in any namespace as
 * in Kubernetes since 1.17) and no global default: a pod without a class gets priority 0 and
 * PreemptLowerPriority. Any other class name, and a priority or preemption policy the pod sets
 * that differs from the computed one, are refused with Kubernetes' sentences. An update keeps
 * the stored values when the new object omits them (validation forbids changing them).
 */
import { AdmissionPlugin } from '../interfaces';
import { podSpec, str } from './pod-json';
import { admissionForbidden, isPodWrite } from './pod-attributes';

/** The built-in classes Kubernetes' apiserver creates at start, with their values. */
export const SYSTEM_PRIORITY_CLASSES: ReadonlyMap<string, number> = new Map([
  ['system-node-critical', 2000001000],
  ['system-cluster-critical', 2000000000],
]);

const PREEMPT_LOWER = 'PreemptLowerPriority';
const DEFAULT_PRIORITY = 0;

export function priorityPlugin(classes: ReadonlyMap<string, number> = SYSTEM_PRIORITY_CLASSES): AdmissionPlugin {
  return {
    name: 'Priority',
    resources: ['/pods'],
    async admit(attrs) {
      if (!isPodWrite(attrs)) return;
      if (attrs.operation === 'UPDATE') {
        const spec = podSpec(attrs.object, true);
        const old = podSpec(attrs.oldObject);
        if ((spec.priority === undefined || spec.priority === null) && typeof old.priority === 'number') spec.priority = old.priority;
        if (!spec.preemptionPolicy && typeof old.preemptionPolicy === 'string') spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (attrs.operation !== 'CREATE') return;
      const spec = podSpec(attrs.object, true);
      const className = str(spec, 'priorityClassName');
      let priority = DEFAULT_PRIORITY;
      if (className) {
        const value = classes.get(className);
        if (value === undefined) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
        priority = value;
      }
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
        throw admissionForbidden(attrs, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
      }
      spec.priority = priority;
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== PREEMPT_LOWER) {
        throw admissionForbidden(attrs, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${PREEMPT_LOWER} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = PREEMPT_LOWER;
    },
  };
}
