/**
 * Where a pod may run, as Kubernetes' validation checks it: node selector labels, node and pod
 * (anti-)affinity terms, tolerations, topology spread constraints, scheduling and readiness
 * gates, and the preemption policy.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isQualifiedName, isValidLabelValue, isDns1123Label, validateLabels } from '../../../meta/validation';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { NodeSelector, validateNodeSelector } from '../node-selector';
import { Json, items, record, records, text } from '../json-fields';

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const OPERATORS = ['Equal', 'Exists'];
const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
const INCLUSION_POLICIES = ['Honor', 'Ignore'];

const labelName = (key: string, path: string): FieldError[] => isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
const selector = (obj: unknown, path: string): FieldError[] => (obj === undefined || obj === null ? [] : labelSelectorFromObject(obj, path).errors);

/** ValidateTolerations. */
export function validateTolerations(tolerations: Json[], path: string): FieldError[] {
  return tolerations.flatMap((t, i) => {
    const at = index(path, i);
    const key = text(t, 'key');
    const operator = text(t, 'operator');
    const value = text(t, 'value');
    const effect = text(t, 'effect');
    const errs = key ? labelName(key, child(at, 'key')) : [];
    if (!key && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(child(at, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (typeof t.tolerationSeconds === 'number' && effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(child(at, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || !operator) {
      const msgs = isValidLabelValue(value);
      if (msgs.length) errs.push(fieldErrors.invalid(child(at, 'operator'), value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value) errs.push(fieldErrors.invalid(child(at, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldErrors.notSupported(child(at, 'operator'), operator, OPERATORS));
    }
    if (effect && !EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(child(at, 'effect'), effect, EFFECTS));
    return errs;
  });
}

const weightErrors = (weight: unknown, path: string): FieldError[] => (
  typeof weight === 'number' && weight >= 1 && weight <= 100 ? [] : [fieldErrors.invalid(path, weight ?? 0, 'must be in the range 1-100')]);

function validatePodAffinityTerm(term: Json, path: string): FieldError[] {
  const errs = [...selector(term.labelSelector, child(path, 'labelSelector')), ...selector(term.namespaceSelector, child(path, 'namespaceSelector'))];
  for (const ns of items(term, 'namespaces')) {
    const name = typeof ns === 'string' ? ns : '';
    errs.push(...isDns1123Label(name).map((m) => fieldErrors.invalid(child(path, 'namespace'), name, m)));
  }
  for (const key of ['matchLabelKeys', 'mismatchLabelKeys']) {
    items(term, key).forEach((k, i) => errs.push(...labelName(typeof k === 'string' ? k : '', index(child(path, key), i))));
  }
  const topologyKey = text(term, 'topologyKey');
  if (!topologyKey) return [...errs, fieldErrors.required(child(path, 'topologyKey'), 'can not be empty')];
  return [...errs, ...labelName(topologyKey, child(path, 'topologyKey'))];
}

function validatePodAffinity(affinity: Json, path: string): FieldError[] {
  const required = child(path, 'requiredDuringSchedulingIgnoredDuringExecution');
  const preferred = child(path, 'preferredDuringSchedulingIgnoredDuringExecution');
  return [
    ...records(affinity, 'requiredDuringSchedulingIgnoredDuringExecution').flatMap((t, i) => validatePodAffinityTerm(t, index(required, i))),
    ...records(affinity, 'preferredDuringSchedulingIgnoredDuringExecution').flatMap((w, i) => [
      ...weightErrors(w.weight, child(index(preferred, i), 'weight')),
      ...validatePodAffinityTerm(record(w, 'podAffinityTerm') ?? {}, child(index(preferred, i), 'podAffinityTerm')),
    ]),
  ];
}

function validateNodeAffinity(affinity: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const required = record(affinity, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (required) errs.push(...validateNodeSelector(required as NodeSelector, child(path, 'requiredDuringSchedulingIgnoredDuringExecution')));
  records(affinity, 'preferredDuringSchedulingIgnoredDuringExecution').forEach((term, i) => {
    const at = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
    errs.push(...weightErrors(term.weight, child(at, 'weight')));
    // A preferred term is checked as a one-term node selector, with the paths put back.
    const inner = validateNodeSelector({ nodeSelectorTerms: [record(term, 'preference') ?? {}] } as NodeSelector, '\0');
    errs.push(...inner.map((e) => ({ ...e, field: e.field.replace('\0.nodeSelectorTerms[0]', child(at, 'preference')) })));
  });
  return errs;
}

/** validateAffinity of spec.affinity. */
export function validateAffinity(affinity: Json | undefined, path: string): FieldError[] {
  if (!affinity) return [];
  const node = record(affinity, 'nodeAffinity');
  const pod = record(affinity, 'podAffinity');
  const anti = record(affinity, 'podAntiAffinity');
  return [
    ...(node ? validateNodeAffinity(node, child(path, 'nodeAffinity')) : []),
    ...(pod ? validatePodAffinity(pod, child(path, 'podAffinity')) : []),
    ...(anti ? validatePodAffinity(anti, child(path, 'podAntiAffinity')) : []),
  ];
}

/** validateTopologySpreadConstraints. */
export function validateTopologySpreadConstraints(constraints: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  constraints.forEach((c, i) => {
    const at = index(path, i);
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0;
    if (maxSkew <= 0) errs.push(fieldErrors.invalid(child(at, 'maxSkew'), maxSkew, 'must be greater than zero'));
    const key = text(c, 'topologyKey');
    if (!key) errs.push(fieldErrors.required(child(at, 'topologyKey'), 'can not be empty'));
    else errs.push(...labelName(key, child(at, 'topologyKey')));
    const when = text(c, 'whenUnsatisfiable');
    if (!WHEN_UNSATISFIABLE.includes(when)) errs.push(fieldErrors.notSupported(child(at, 'whenUnsatisfiable'), when, WHEN_UNSATISFIABLE));
    const pair = `{${key}, ${when}}`;
    if (seen.has(pair)) errs.push(fieldErrors.duplicate(child(at, '{topologyKey, whenUnsatisfiable}'), pair));
    seen.add(pair);
    if (typeof c.minDomains === 'number') {
      if (c.minDomains <= 0) errs.push(fieldErrors.invalid(child(at, 'minDomains'), c.minDomains, 'must be greater than 0'));
      if (when !== 'DoNotSchedule') errs.push(fieldErrors.invalid(child(at, 'minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`));
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      const v = c[policy];
      if (typeof v === 'string' && !INCLUSION_POLICIES.includes(v)) errs.push(fieldErrors.notSupported(child(at, policy), v, INCLUSION_POLICIES));
    }
    items(c, 'matchLabelKeys').forEach((k, j) => errs.push(...labelName(typeof k === 'string' ? k : '', index(child(at, 'matchLabelKeys'), j))));
    errs.push(...selector(c.labelSelector, child(at, 'labelSelector')));
  });
  return errs;
}

/** Scheduling fields of a PodSpec at `path` (spec). */
export function validateScheduling(spec: Json, path: string): FieldError[] {
  const errs = [
    ...validateLabels(spec.nodeSelector, child(path, 'nodeSelector')),
    ...validateAffinity(record(spec, 'affinity'), child(path, 'affinity')),
    ...validateTolerations(records(spec, 'tolerations'), child(path, 'tolerations')),
    ...validateTopologySpreadConstraints(records(spec, 'topologySpreadConstraints'), child(path, 'topologySpreadConstraints')),
  ];
  const gates = new Set<string>();
  records(spec, 'schedulingGates').forEach((g, i) => {
    const name = text(g, 'name');
    const at = index(child(path, 'schedulingGates'), i);
    errs.push(...isQualifiedName(name).map((m) => fieldErrors.invalid(at, name, m)));
    if (gates.has(name)) errs.push(fieldErrors.duplicate(at, name));
    gates.add(name);
  });
  records(spec, 'readinessGates').forEach((g, i) => {
    const type = text(g, 'conditionType');
    errs.push(...isQualifiedName(type).map((m) => fieldErrors.invalid(child(index(child(path, 'readinessGates'), i), 'conditionType'), type, m)));
  });
  const preemption = spec.preemptionPolicy;
  if (typeof preemption === 'string' && !['Never', 'PreemptLowerPriority'].includes(preemption)) {
    errs.push(fieldErrors.notSupported(child(path, 'preemptionPolicy'), preemption, ['Never', 'PreemptLowerPriority']));
  }
  return errs;
}
