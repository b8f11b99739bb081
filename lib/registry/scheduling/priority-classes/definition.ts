/**
 * PriorityClass (scheduling.k8s.io/v1, cluster-scoped, short name `pc`): a name pods give in
 * spec.priorityClassName, mapped to the priority value the Priority admission plugin
 * (lib/admission/pod/priority.ts) writes into them, with the preemption policy they get.
 * `value` and `preemptionPolicy` are immutable; the two system classes are created by every
 * server at start and a DELETE of either is refused, as Kubernetes' storage refuses it.
 * At most one class is the globalDefault: that is the Priority plugin's check, as in Kubernetes.
 * kubectl's NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY table.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { priorityClassSchema } from './schema';
import { defaultPriorityClass, priorityClassFields, validatePriorityClass, validatePriorityClassUpdate } from './validation';
import { systemPriorityClass } from './system-classes';

const KIND = 'PriorityClass';
const property = (name: string): string => priorityClassSchema.properties?.[name]?.description ?? '';

/** printPriorityClass: PREEMPTIONPOLICY is '' when unset. */
const priorityClassTable: TableColumns = {
  columns: [
    nameColumn,
    column('Value', 'integer', property('value')),
    column('Global-Default', 'boolean', property('globalDefault')),
    ageColumn,
    column('PreemptionPolicy', 'string', property('preemptionPolicy')),
  ],
  cells: (obj, now) => {
    const pc = priorityClassFields(obj as ApiObject);
    const policy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : '';
    return [obj.metadata?.name ?? '', pc.value, pc.globalDefault, translateTimestampSince(obj.metadata?.creationTimestamp, now), policy];
  },
};

export function priorityClassResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('scheduling'), version: 'v1', kind: KIND, listKind: 'PriorityClassList',
    resource: 'priorityclasses', singular: 'priorityclass', namespaced: false, shortNames: ['pc'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: priorityClassSchema,
    table: priorityClassTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, priorityClassSchema, KIND),
      default: defaultPriorityClass,
      prepareForCreate: defaultPriorityClass,
      prepareForUpdate: (obj) => defaultPriorityClass(obj),
      // Kubernetes sets generation 1 on create and never bumps it (the class has no spec).
      specChanged: () => false,
      validate: (obj) => validatePriorityClass(obj),
      validateUpdate: (obj, old) => validatePriorityClassUpdate(obj, old),
      deleteRefusal: (name) => (systemPriorityClass(name) ? 'this is a system priority class and cannot be deleted' : undefined),
    },
  };
}
