/**
 * PodDisruptionBudget (policy/v1, namespaced, short name `pdb`): how many of the pods a selector
 * picks may be disrupted at once. The spec is mutable and its changes bump metadata.generation;
 * status is reset on create (its four counts written as zeros, as Go writes them) and written
 * only through `/status`, which ignores the spec. Updates must name a resourceVersion, and PUT
 * does not create. kubectl's NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE table.
 *
 * Not here: the disruption controller that fills the status, and pods/eviction, which consults
 * the budgets.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { intOrStringText } from '../../../meta/int-or-percent';
import { statusSubresource } from '../../status-subresource';
import { semanticEqual } from '../../core/semantic-equal';
import { podDisruptionBudgetSchema } from './schema';
import {
  PodDisruptionBudgetStatus, hasInvalidLabelValueInSelector, specOf, statusOf, validatePodDisruptionBudgetSpec,
  validatePodDisruptionBudgetStatus,
} from './validation';

const KIND = 'PodDisruptionBudget';

/** printPodDisruptionBudget: an unset bound prints N/A. */
const podDisruptionBudgetTable: TableColumns = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    const bound = (v: unknown) => (v === undefined || v === null ? 'N/A' : intOrStringText(v));
    return [
      obj.metadata?.name ?? '', bound(spec.minAvailable), bound(spec.maxUnavailable),
      statusOf(obj as ApiObject).disruptionsAllowed ?? 0, translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};

/**
 * The status as Go stores it: the four counts (no omitempty) always present, observedGeneration,
 * disruptedPods and conditions dropped when empty.
 */
function normalizeStatus(status: PodDisruptionBudgetStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (status.observedGeneration) out.observedGeneration = status.observedGeneration;
  if (status.disruptedPods && Object.keys(status.disruptedPods).length) out.disruptedPods = status.disruptedPods;
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) out[f] = status[f] ?? 0;
  if (status.conditions?.length) out.conditions = status.conditions;
  return out;
}

/** The kind, in the `policy` group (the same name in both flavors). */
export function podDisruptionBudgetResource(): ResourceDef {
  return {
    group: 'policy', version: 'v1', kind: KIND, listKind: 'PodDisruptionBudgetList',
    resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => normalizeStatus(status as PodDisruptionBudgetStatus))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: podDisruptionBudgetSchema,
    table: podDisruptionBudgetTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      checkDecode: (obj) => decodeProblem(obj, podDisruptionBudgetSchema, KIND),
      // Go writes the spec struct even when empty (omitempty does not omit a struct).
      prepareForCreate: (obj) => { obj.spec ??= {}; obj.status = normalizeStatus({}); },
      prepareForUpdate: (obj, old) => { obj.spec ??= {}; obj.status = old.status; },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validatePodDisruptionBudgetSpec(specOf(obj)),
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what each of Kubernetes' two strategies checks.
      validateUpdate: (obj, old) => [
        ...validatePodDisruptionBudgetSpec(specOf(obj), 'spec', { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(specOf(old)) }),
        ...validatePodDisruptionBudgetStatus(statusOf(obj)),
      ],
    },
  };
}
