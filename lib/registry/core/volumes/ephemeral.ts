/**
 * Generic ephemeral volumes: `ephemeral.volumeClaimTemplate` is required; its metadata may hold
 * only labels and annotations (they are copied to the claim); its spec is a claim spec checked
 * and defaulted as a PersistentVolumeClaim's; and the claim's name, `<workload>-<volume>`, must
 * be a valid claim name (a DNS subdomain of at most 253 characters).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Subdomain, validateAnnotations, validateLabels } from '../../../meta/validation';
import { ClaimSpecOptions, PersistentVolumeClaimSpec, prepareClaimSpec, validatePersistentVolumeClaimSpec } from './persistent-volume-claim-spec';
import { Json, absent, record } from '../json-fields';
import { SourceRule, VolumeContext } from './source-rule';

/** ObjectMeta fields by JSON name, as Kubernetes names them in "cannot be set" errors (Go name, first letter lowered). */
const TEMPLATE_META_FIELDS: Record<string, string> = {
  name: 'name', generateName: 'generateName', namespace: 'namespace', selfLink: 'selfLink', uid: 'uID',
  resourceVersion: 'resourceVersion', generation: 'generation', creationTimestamp: 'creationTimestamp',
  deletionTimestamp: 'deletionTimestamp', deletionGracePeriodSeconds: 'deletionGracePeriodSeconds',
  ownerReferences: 'ownerReferences', finalizers: 'finalizers', managedFields: 'managedFields',
};

/** Go's zero value test for a decoded metadata field ("", 0 and absent are unset; [] is set). */
const isSet = (v: unknown): boolean => !absent(v) && v !== '' && v !== 0;

/** ValidateTemplateObjectMeta: labels and annotations well formed, nothing else set. */
function validateTemplateMeta(meta: Json, path: string): FieldError[] {
  const errs = [...validateAnnotations(meta.annotations, child(path, 'annotations')), ...validateLabels(meta.labels, child(path, 'labels'))];
  for (const [key, goName] of Object.entries(TEMPLATE_META_FIELDS)) {
    if (isSet(meta[key])) errs.push(fieldErrors.forbidden(child(path, goName), 'cannot be set'));
  }
  return errs;
}

/** The name of the claim created for a volume (Kubernetes' ephemeral.VolumeClaimName). */
export const ephemeralClaimName = (workloadName: string, volumeName: string): string => `${workloadName}-${volumeName}`;

function validateClaimName(ctx: VolumeContext): FieldError[] {
  if (!ctx.workloadName || !ctx.volumeName) return [];
  const claim = ephemeralClaimName(ctx.workloadName, ctx.volumeName);
  return isDns1123Subdomain(claim).map((m) => fieldErrors.invalid(child(ctx.volumePath, 'name'), ctx.volumeName, `PVC name "${claim}": ${m}`));
}

/** The ephemeral source rule; claim-spec checks follow the server's gates (`opts`). */
export function ephemeralRule(opts: ClaimSpecOptions): SourceRule {
  return {
    validate: (src, path, ctx) => {
      const template = record(src, 'volumeClaimTemplate');
      const errs: FieldError[] = [];
      if (!template) errs.push(fieldErrors.required(child(path, 'volumeClaimTemplate')));
      else {
        const templatePath = child(path, 'volumeClaimTemplate');
        errs.push(...validateTemplateMeta(record(template, 'metadata') ?? {}, child(templatePath, 'metadata')));
        const spec = (record(template, 'spec') ?? {}) as PersistentVolumeClaimSpec;
        errs.push(...validatePersistentVolumeClaimSpec(spec, child(templatePath, 'spec'), opts));
      }
      return [...errs, ...validateClaimName(ctx)];
    },
    defaults: (src) => {
      const spec = record(record(src, 'volumeClaimTemplate') ?? {}, 'spec');
      if (spec) prepareClaimSpec(spec as PersistentVolumeClaimSpec, undefined, opts);
    },
  };
}
