/**
 * Bad values as Kubernetes prints them in field errors when they are Go slices or structs
 * (`%#v`): `[]string{"v1"}`, and the internal type's list of versions. A Go pointer that is set
 * prints as an address, which differs from run to run in Kubernetes; here it is a fixed one.
 */
import { FieldError } from '../../../meta/field-errors';
import { CrdVersion } from './view';

const SET_POINTER = '0xc000000000';

/** A `[]string` as `%#v` prints it (`[]string{}` when empty, as the value is never nil here). */
export function goStrings(list: unknown): string {
  const items = Array.isArray(list) ? list : [];
  return `[]string{${items.map((s) => JSON.stringify(String(s))).join(', ')}}`;
}

const pointer = (type: string, v: unknown) => (v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(${SET_POINTER})`);
const slice = (type: string, v: unknown) => (Array.isArray(v) && v.length ? `[]${type}{...}` : `[]${type}(nil)`);

/**
 * The internal `[]CustomResourceDefinitionVersion`, where `lifted` fields (the same in every
 * version) are nil in each version, as after Kubernetes' conversion.
 */
export function goVersions(versions: CrdVersion[], lifted: Set<string>): string {
  const one = (v: CrdVersion) => {
    const field = (name: keyof CrdVersion) => (lifted.has(name) ? undefined : v[name]);
    return 'apiextensions.CustomResourceDefinitionVersion{'
      + `Name:${JSON.stringify(String(v.name ?? ''))}, Served:${v.served === true}, Storage:${v.storage === true}, `
      + `Deprecated:${v.deprecated === true}, DeprecationWarning:${pointer('string', v.deprecationWarning)}, `
      + `Schema:${pointer('apiextensions.CustomResourceValidation', field('schema'))}, `
      + `Subresources:${pointer('apiextensions.CustomResourceSubresources', field('subresources'))}, `
      + `AdditionalPrinterColumns:${slice('apiextensions.CustomResourceColumnDefinition', field('additionalPrinterColumns'))}, `
      + `SelectableFields:${slice('apiextensions.SelectableField', field('selectableFields'))}}`;
  };
  return versions.length
    ? `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(one).join(', ')}}`
    : '[]apiextensions.CustomResourceDefinitionVersion(nil)';
}

/** `Invalid value: <rendered>: detail`, for a value already rendered in Go's form. */
export function invalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` };
}
