/**
 * PodDisruptionBudget at policy/v1beta1: removed from Kubernetes in 1.25, served here only when
 * `--runtime-config=policy/v1beta1=true` switches it on (deprecated, with Kubernetes' warning).
 * Its objects are policy/v1's (stored at v1); what differs is the meaning of an empty selector,
 * which v1beta1 reads as "no pods" and v1 as "all pods". As Kubernetes' conversion
 * (pkg/apis/policy/v1beta1/conversion.go, helper.go) does, the two sentinel selectors over the
 * label `pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match` carry the meaning across:
 * - written at v1beta1, `{}` is stored as `Exists` of the label (matches nothing at v1), the
 *   v1beta1 match-all `DoesNotExist` of the label as `{}`, and the label is stripped from any
 *   other selector;
 * - read at v1beta1, the stored match-none is `{}` and a stored `{}` is the match-all sentinel.
 * An absent selector selects nothing in both. Status validation at v1beta1 checks conditions
 * only (Kubernetes adds no checks retroactively to v1beta1).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { servedOverStorage } from '../../served-version';
import { semanticEqual } from '../../core/semantic-equal';
import { podDisruptionBudgetResource } from './definition';
import { hasInvalidLabelValueInSelector, specOf, statusOf, validatePodDisruptionBudgetSpec } from './validation';
import { validateConditions } from '../../../meta/conditions';

export const PDB_V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

type Selector = { matchLabels?: Record<string, string> | null; matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }> | null };

const sentinel = (operator: 'Exists' | 'DoesNotExist'): Selector => ({ matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator }] });
/** Empty maps and lists count as absent, as Go's Semantic.DeepEqual has it. */
const isEmptySelector = (s: Selector): boolean => !Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length;
const isSentinel = (s: Selector, operator: string): boolean => !Object.keys(s.matchLabels ?? {}).length
  && (s.matchExpressions ?? []).length === 1 && semanticEqual(s.matchExpressions![0], { key: PDB_V1BETA1_LABEL, operator });

/** Convert_v1beta1_PodDisruptionBudget_To_policy_PodDisruptionBudget's selector rules, in place. */
export function selectorFromV1beta1(obj: ApiObject): void {
  const spec = obj.spec as { selector?: Selector | null } | undefined;
  const sel = spec?.selector;
  if (!spec || !sel || typeof sel !== 'object') return;
  if (isEmptySelector(sel)) spec.selector = sentinel('Exists');
  else if (isSentinel(sel, 'DoesNotExist')) spec.selector = {};
  else if (Array.isArray(sel.matchExpressions)) {
    const kept = sel.matchExpressions.filter((e) => e?.key !== PDB_V1BETA1_LABEL);
    spec.selector = { ...sel, matchExpressions: kept };
    if (!kept.length) delete spec.selector.matchExpressions;
  }
}

/** Convert_policy_PodDisruptionBudget_To_v1beta1_PodDisruptionBudget's selector rules (a copy). */
export function selectorToV1beta1(obj: ApiObject): ApiObject {
  const sel = (obj.spec as { selector?: Selector | null } | undefined)?.selector;
  if (!sel || typeof sel !== 'object') return obj;
  if (isSentinel(sel, 'Exists')) return { ...obj, spec: { ...(obj.spec as object), selector: {} } };
  if (isEmptySelector(sel)) return { ...obj, spec: { ...(obj.spec as object), selector: sentinel('DoesNotExist') } };
  return obj;
}

/** The policy/v1beta1 def over policy/v1's objects, off unless --runtime-config switches it on. */
export function podDisruptionBudgetV1beta1Resource(): ResourceDef {
  const v1 = podDisruptionBudgetResource();
  const s = v1.strategy;
  const def: ResourceDef = {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 21], removedIn: [1, 25], replacement: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' } },
    strategy: {
      ...s,
      prepareForCreate: (obj, ctx) => { selectorFromV1beta1(obj); s.prepareForCreate?.(obj, ctx); },
      prepareForUpdate: (obj, old, ctx) => { selectorFromV1beta1(obj); s.prepareForUpdate?.(obj, old, ctx); },
      validateUpdate: (obj, old) => [
        ...validatePodDisruptionBudgetSpec(specOf(obj), 'spec', { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(specOf(old)) }),
        ...validateConditions(statusOf(obj).conditions, 'status.conditions'),
      ],
      decorate: (obj) => selectorToV1beta1(obj),
    },
  };
  return servedOverStorage(def, 'v1');
}
