/**
 * Kubernetes' ValidateReplicaSetSpec and ValidateReplicaSetStatus (pkg/apis/apps/validation) over
 * a defaulted ReplicaSet's JSON. The selector and template rules are the ones Deployment shares
 * (../replica-selector.ts).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { Json } from '../../core/json-fields';
import { VolumeRules } from '../../core/volumes/volume-list';
import { validateReplicaSelectorAndTemplate } from '../replica-selector';
import { validateNonNegative as nonNegative } from '../../../meta/validation';

/** ValidateReplicaSetSpec over a defaulted spec. */
export function validateReplicaSetSpec(spec: Json, volumes: VolumeRules, path = 'spec'): FieldError[] {
  return [
    ...nonNegative(spec.replicas, child(path, 'replicas')),
    ...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')),
    ...validateReplicaSelectorAndTemplate(spec, path, volumes),
  ];
}

/** ValidateReplicaSetStatus. */
export function validateReplicaSetStatus(status: Json, path = 'status'): FieldError[] {
  const n = (k: string) => (typeof status[k] === 'number' ? (status[k] as number) : 0);
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    errs.push(...nonNegative(status[f], child(path, f)));
  }
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (n(f) > n('replicas')) errs.push(fieldErrors.invalid(child(path, f), n(f), msg));
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(fieldErrors.invalid(child(path, 'availableReplicas'), n('availableReplicas'), 'cannot be greater than readyReplicas'));
  }
  return errs;
}
