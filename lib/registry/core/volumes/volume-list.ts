/**
 * A workload's volumes: each has a DNS-label name, unique in the list, and exactly one source
 * (a second source is Forbidden at its own path, none is Required at the volume). Sources are
 * checked and defaulted by their family (projected.ts, persistent.ts, local.ts, ephemeral.ts)
 * in Kubernetes' order, which decides which of two sources is reported.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label } from '../../../meta/validation';
import { volumeSources } from './volume-schema';
import { ClaimSpecOptions } from './persistent-volume-claim-spec';
import { Json, absent, record, text } from '../json-fields';
import { SourceRule } from './source-rule';
import { projectedFamily } from './projected';
import { persistentFamily } from './persistent';
import { localFamily } from './local';
import { ephemeralClaimName, ephemeralRule } from './ephemeral';

/** Checks and defaults the volumes of a workload; built once per server (gates fixed). */
export interface VolumeRules {
  /**
   * Errors of `volumes` at `path` (e.g. `spec.volumes`). `workloadName` ('' if unknown) names
   * ephemeral claims. Also returns the names of the volumes without errors, which mounts may use.
   */
  validate(volumes: Json[], workloadName: string, path: string): { errors: FieldError[]; valid: Set<string> };
  /** Fills every source's defaults in place. */
  defaults(volumes: Json[]): void;
}

// Kubernetes' own misspelling of the second-source path for downwardAPI.
const FORBIDDEN_AT: Record<string, string> = { downwardAPI: 'downwarAPI' };

export function volumeRules(claimOptions: ClaimSpecOptions): VolumeRules {
  const families: Record<string, SourceRule> = { ...projectedFamily, ...persistentFamily, ...localFamily, ephemeral: ephemeralRule(claimOptions) };
  // The schema lists the sources in validation order; every one of them has a rule.
  const ordered: Array<[string, SourceRule]> = Object.keys(volumeSources).map((k) => [k, families[k]]);

  function validateSource(vol: Json, volumePath: string, workloadName: string): FieldError[] {
    const errs: FieldError[] = [];
    let count = 0;
    const ctx = { volumeName: text(vol, 'name'), workloadName, volumePath };
    for (const [key, rule] of ordered) {
      if (absent(vol[key])) continue;
      if (count > 0) {
        errs.push(fieldErrors.forbidden(child(volumePath, FORBIDDEN_AT[key] ?? key), 'may not specify more than 1 volume type'));
        continue;
      }
      count++;
      errs.push(...rule.validate(record(vol, key) ?? {}, child(volumePath, key), ctx));
    }
    if (!count) errs.push(fieldErrors.required(volumePath, 'must specify a volume type'));
    return errs;
  }

  return {
    validate(volumes, workloadName, path) {
      const errors: FieldError[] = [];
      const valid = new Set<string>();
      const claims = new Set(workloadName
        ? volumes.filter((v) => !absent(v.ephemeral)).map((v) => ephemeralClaimName(workloadName, text(v, 'name'))) : []);
      volumes.forEach((vol, i) => {
        const volumePath = index(path, i);
        const namePath = child(volumePath, 'name');
        const name = text(vol, 'name');
        const errs = validateSource(vol, volumePath, workloadName);
        if (!name) errs.push(fieldErrors.required(namePath));
        else errs.push(...isDns1123Label(name).map((m) => fieldErrors.invalid(namePath, name, m)));
        if (valid.has(name)) errs.push(fieldErrors.duplicate(namePath, name));
        if (!errs.length) valid.add(name);
        errors.push(...errs);
        const claimName = text(record(vol, 'persistentVolumeClaim') ?? {}, 'claimName');
        if (claimName && claims.has(claimName)) {
          errors.push(fieldErrors.invalid(child(child(volumePath, 'persistentVolumeClaim'), 'claimName'), claimName,
            'must not reference a PVC that gets created for an ephemeral volume'));
        }
      });
      return { errors, valid };
    },
    defaults(volumes) {
      for (const vol of volumes) {
        for (const [key, rule] of ordered) {
          const source = record(vol, key);
          if (source) rule.defaults?.(source);
        }
      }
    },
  };
}
