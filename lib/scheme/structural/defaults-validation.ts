/**
 * Kubernetes' `ValidateDefaults`: every `default` of a CRD schema must validate against its
 * node's schema, be pruned already (`must not have unknown fields`), and, for embedded
 * resources, carry valid apiVersion/kind/metadata. The root is treated as an embedded resource.
 */
import { isDeepStrictEqual } from 'node:util';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { Structural } from './structural';
import { prune } from './prune';
import { coerceEmbedded, validateEmbedded } from './embedded-meta';
import { compileValidator } from './compile';

/** The default errors of the structural schema `s` (the CRD's root) at `path`. */
export function validateDefaults(path: string, s: Structural): FieldError[] {
  const root = s.xEmbeddedResource ? s : { ...s, xEmbeddedResource: true };
  return walk(path, root, false);
}

function walk(path: string, s: Structural, insideMeta: boolean): FieldError[] {
  if (s.xEmbeddedResource) insideMeta = false;
  const errs: FieldError[] = [];
  if (s.hasDefault) {
    const dpath = `${path}.default`;
    const validate = compileValidator(s.raw);
    if (insideMeta) {
      // Defaults inside an embedded resource's metadata: the value checks still apply.
      errs.push(...validate(s.default, dpath));
    } else {
      const pruned = structuredClone(s.default);
      prune(pruned, s, { isResourceRoot: !!s.xEmbeddedResource });
      if (!isDeepStrictEqual(pruned, s.default)) errs.push(fieldErrors.invalid(dpath, s.default, 'must not have unknown fields'));
      const copy = structuredClone(s.default);
      const coerced = coerceEmbedded(copy, s, { path: dpath });
      if (coerced.error) errs.push(coerced.error);
      else {
        const metaErrs = validateEmbedded(s.default, s, { path: dpath });
        if (metaErrs.length) errs.push(...metaErrs);
        else errs.push(...validate(s.default, dpath));
      }
    }
  }
  if (s.items) errs.push(...walk(`${path}.items`, s.items, insideMeta));
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    const meta = !!s.xEmbeddedResource && (k === 'metadata' || k === 'apiVersion' || k === 'kind');
    errs.push(...walk(`${path}.properties[${k}]`, sub, insideMeta || meta));
  }
  return errs;
}
