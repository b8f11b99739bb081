/**
 * The checks of a v1beta1 CustomResourceDefinition that its v1 form cannot show, because the
 * conversion to v1 resolves them (Kubernetes runs them on the internal type, which keeps both
 * the top-level and the per-version fields): top-level and per-version fields are mutually
 * exclusive, per-version fields may not all be identical (the top-level field is for that), and
 * `spec.version` must be the first version's name. The rest is validation.ts on the v1 form.
 */
import { ApiObject } from '../../../scheme/types';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isDns1035Label } from '../../../meta/validation';
import { CrdVersion, semanticEqual } from './view';
import { goVersions, invalidRendered } from './go-values';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;
const nonEmpty = (v: unknown) => Array.isArray(v) && v.length > 0;

/** The per-version field, its top-level name, whether a value counts as set, and its name in the messages. */
const FIELDS = [
  { field: 'schema', top: 'validation', set: present, what: 'schemas', use: 'validation' },
  { field: 'subresources', top: 'subresources', set: present, what: 'subresources', use: 'subresources' },
  { field: 'additionalPrinterColumns', top: 'additionalPrinterColumns', set: nonEmpty, what: 'additionalPrinterColumns', use: 'additionalPrinterColumns' },
] as const;

/** The v1beta1-only errors of a (defaulted) v1beta1 object. */
export function validateCrdV1beta1Spec(obj: ApiObject): FieldError[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).map((v) => (isObject(v) ? v : {}));
  const errs: FieldError[] = [];
  for (const { field, top, set, what } of FIELDS) {
    if (set(spec[top]) && versions.some((v) => set(v[field]))) {
      errs.push(fieldErrors.forbidden(`spec.${top}`, `top-level and per-version ${what} are mutually exclusive`));
    }
  }
  const rendered = goVersions(versions as CrdVersion[], new Set());
  for (const { field, set, what, use } of FIELDS) {
    // hasIdenticalPerVersion*: every version sets the field, to the same value.
    const first = versions[0]?.[field];
    if (versions.length && versions.every((v) => set(v[field]) && semanticEqual(v[field], first))) {
      errs.push(invalidRendered('spec.versions', rendered,
        `per-version ${what} may not all be set to identical values (top-level ${use} should be used instead)`));
    }
  }
  const version = typeof spec.version === 'string' ? spec.version : '';
  const firstName = versions.length && typeof versions[0].name === 'string' ? versions[0].name : undefined;
  // validation.ts checks the first version's name as spec.version (the internal type's copy).
  if (version && version !== firstName) {
    const dns = isDns1035Label(version);
    if (dns.length) errs.push(fieldErrors.invalid('spec.version', version, dns.join(',')));
    if (versions.length) errs.push(fieldErrors.invalid('spec.version', version, 'must match the first version in spec.versions'));
  }
  return errs;
}
