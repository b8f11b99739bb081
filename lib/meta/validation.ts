/**
 * Kubernetes' apimachinery validation of names and object metadata. Everything here is pure:
 * the name checks return Kubernetes' messages, the metadata checks return FieldErrors whose
 * paths and texts are the ones Kubernetes reports, so clients see the same 422 causes.
 */
import { FieldError, child, fieldErrors, index } from './field-errors';

/** How a kind's names are checked (Kubernetes' ValidateNameFunc choices). */
export type NameValidation = 'dns-subdomain' | 'dns-label' | 'dns-1035-label' | 'path-segment';

/** What validateObjectMeta needs to know about the kind. */
export interface ObjectMetaOptions {
  /** Namespaced kinds need metadata.namespace; cluster-scoped kinds may not have one. */
  namespaced: boolean;
  nameValidation: NameValidation;
}

/** Kubernetes' limit on the summed byte length of all annotation keys and values (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

// Go measures strings in bytes; the length messages must agree with it for non-ASCII input.
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE_FMT}$`);

const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const EMPTY_ERROR = 'must be non-empty';

/**
 * Kubernetes' RegexError, including its double space:
 * `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`.
 */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (!examples.length) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** IsDNS1123Subdomain: at most 253 characters of dot-separated lower-case labels. Empty list = valid. */
export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** IsDNS1123Label: at most 63 lower-case alphanumerics or '-', alphanumeric at both ends. Empty list = valid. */
export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** IsDNS1035Label: at most 63 lower-case alphanumerics or '-', a letter first, alphanumeric last. Empty list = valid. */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/**
 * IsQualifiedName, the format of label and annotation keys and finalizers: an optional
 * DNS-subdomain prefix and '/', then a name of at most 63 characters. Empty list = valid.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`
      + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (!prefix) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (!name) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** IsValidLabelValue: empty, or at most 63 characters in qualified-name form. Empty list = valid. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * IsValidPathSegmentName: a name usable as one URL path segment. With `prefix` (generateName)
 * only the forbidden characters are checked, as more characters will be appended.
 */
export function isPathSegmentName(value: string, prefix = false): string[] {
  if (!prefix && (value === '.' || value === '..')) return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

// Kubernetes' maskTrailingDash, byte for byte (it also drops the character before the dash).
const maskTrailingDash = (name: string): string =>
  (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

/**
 * A name (or, with `prefix`, a generateName) checked per the kind's rule. A prefix may end in
 * '-', since a random suffix follows; the generated name itself must be checked again.
 */
export function validateName(value: string, how: NameValidation, prefix = false): string[] {
  switch (how) {
    case 'dns-subdomain': return isDns1123Subdomain(prefix ? maskTrailingDash(value) : value);
    case 'dns-label': return isDns1123Label(prefix ? maskTrailingDash(value) : value);
    case 'dns-1035-label': return isDns1035Label(prefix ? maskTrailingDash(value) : value);
    case 'path-segment': return isPathSegmentName(value, prefix);
  }
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): boolean => v === undefined || v === null;

/** A string field: '' when absent, undefined (with a type error pushed) when not a string. */
function stringField(meta: JsonObject, key: string, path: string, errs: FieldError[]): string | undefined {
  const v = meta[key];
  if (absent(v)) return '';
  if (typeof v === 'string') return v;
  errs.push(fieldErrors.typeInvalid(child(path, key), v, 'must be of type string'));
  return undefined;
}

/** A map of strings (labels, annotations): the string entries, with type errors pushed for the rest. */
function stringMap(v: unknown, path: string, errs: FieldError[]): Array<[string, string]> {
  if (absent(v)) return [];
  if (!isObject(v)) {
    errs.push(fieldErrors.typeInvalid(path, v, 'must be of type object'));
    return [];
  }
  const entries: Array<[string, string]> = [];
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') entries.push([k, val]);
    else errs.push(fieldErrors.typeInvalid(index(path, k), val, 'must be of type string'));
  }
  return entries;
}

/** ValidateLabels: keys are qualified names, values label values; errors under `path`. */
export function validateLabels(v: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, val] of stringMap(v, path, errs)) {
    for (const m of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, m));
    for (const m of isValidLabelValue(val)) errs.push(fieldErrors.invalid(path, val, m));
  }
  return errs;
}

/** ValidateAnnotations: keys are qualified names (any case), 256 KiB in all; errors under `path`. */
export function validateAnnotations(v: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, val] of stringMap(v, path, errs)) {
    // Annotation keys are qualified names with case ignored.
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, m));
    size += byteLength(k) + byteLength(val);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateFinalizers(v: unknown, path: string): FieldError[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) return [fieldErrors.typeInvalid(path, v, 'must be of type array')];
  const errs: FieldError[] = [];
  v.forEach((f: unknown, i) => {
    if (typeof f !== 'string') errs.push(fieldErrors.typeInvalid(index(path, i), f, 'must be of type string'));
    else for (const m of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, m));
  });
  if (v.includes('orphan') && v.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, v, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** The version part of an apiVersion, as schema.ParseGroupVersion reads it ('' when malformed). */
function versionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

function validateOwnerReferences(v: unknown, path: string): FieldError[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) return [fieldErrors.typeInvalid(path, v, 'must be of type array')];
  const errs: FieldError[] = [];
  let firstController = '';
  v.forEach((ref: unknown, i) => {
    if (!isObject(ref)) {
      errs.push(fieldErrors.typeInvalid(index(path, i), ref, 'must be of type object'));
      return;
    }
    const typeErrs: FieldError[] = [];
    const field = (k: string) => stringField(ref, k, index(path, i), typeErrs) ?? '';
    const apiVersion = field('apiVersion');
    const kind = field('kind');
    const name = field('name');
    const uid = field('uid');
    for (const k of ['controller', 'blockOwnerDeletion']) {
      if (!absent(ref[k]) && typeof ref[k] !== 'boolean') {
        typeErrs.push(fieldErrors.typeInvalid(child(index(path, i), k), ref[k], 'must be of type boolean'));
      }
    }
    errs.push(...typeErrs);
    // Kubernetes reports these on the list path without an index.
    const gv = versionOf(apiVersion);
    if (!gv.version) errs.push(fieldErrors.invalid(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) errs.push(fieldErrors.invalid(child(path, 'kind'), kind, 'kind must not be empty'));
    if (!name) errs.push(fieldErrors.invalid(child(path, 'name'), name, 'name must not be empty'));
    if (!uid) errs.push(fieldErrors.invalid(child(path, 'uid'), uid, 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(fieldErrors.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${kind}/${name}`;
      if (!firstController) firstController = current;
      else {
        errs.push(fieldErrors.invalid(path, v,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      }
    }
  });
  return errs;
}

/**
 * ValidateObjectMeta for a create (and, with validateObjectMetaUpdate, an update): metadata is
 * an object; a name or generateName is given and valid for the kind (generateName checked as a
 * prefix, a generated name must be in `name` to be checked); namespace required and a DNS label
 * for namespaced kinds, forbidden for cluster-scoped ones; labels, annotations (256 KiB in all),
 * finalizers and ownerReferences well formed. Returns [] when valid. Does not mutate `meta`.
 */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions, path = 'metadata'): FieldError[] {
  if (absent(meta)) meta = {};
  if (!isObject(meta)) return [fieldErrors.typeInvalid(path, meta, 'must be of type object')];
  const errs: FieldError[] = [];
  const name = stringField(meta, 'name', path, errs);
  const generateName = stringField(meta, 'generateName', path, errs);
  const namespace = stringField(meta, 'namespace', path, errs);

  if (generateName) {
    for (const m of validateName(generateName, opts.nameValidation, true)) {
      errs.push(fieldErrors.invalid(child(path, 'generateName'), generateName, m));
    }
  }
  if (name) {
    for (const m of validateName(name, opts.nameValidation)) errs.push(fieldErrors.invalid(child(path, 'name'), name, m));
  } else if (name === '' && generateName === '') {
    errs.push(fieldErrors.required(child(path, 'name'), 'name or generateName is required'));
  }

  if (opts.namespaced) {
    if (namespace === '') errs.push(fieldErrors.required(child(path, 'namespace')));
    else if (namespace) {
      for (const m of isDns1123Label(namespace)) errs.push(fieldErrors.invalid(child(path, 'namespace'), namespace, m));
    }
  } else if (namespace) {
    errs.push(fieldErrors.forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }

  errs.push(...validateLabels(meta.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, child(path, 'finalizers')));
  return errs;
}

// Values compared as JSON, so that absent and null agree.
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The update-only rules of ValidateObjectMetaUpdate, meant to run next to validateObjectMeta on
 * the new metadata (it does not repeat those checks): name and namespace may not change; uid and
 * creationTimestamp may not change when given (absent = carried over by the caller);
 * deletionTimestamp may be set but never changed or removed; no finalizer may be added once
 * deletionTimestamp is set. generation and resourceVersion are the server's and not checked.
 */
export function validateObjectMetaUpdate(newMeta: unknown, oldMeta: unknown, path = 'metadata'): FieldError[] {
  if (absent(newMeta)) newMeta = {};
  if (!isObject(newMeta)) return [fieldErrors.typeInvalid(path, newMeta, 'must be of type object')];
  const oldM: JsonObject = isObject(oldMeta) ? oldMeta : {};
  const errs: FieldError[] = [];

  for (const k of ['name', 'namespace']) {
    const now = newMeta[k] ?? '';
    if (!same(now, oldM[k] ?? '')) errs.push(fieldErrors.immutable(child(path, k), now));
  }
  for (const k of ['uid', 'creationTimestamp']) {
    if (!absent(newMeta[k]) && !same(newMeta[k], oldM[k])) errs.push(fieldErrors.immutable(child(path, k), newMeta[k]));
  }
  if (!absent(oldM.deletionTimestamp) && !same(newMeta.deletionTimestamp, oldM.deletionTimestamp)) {
    errs.push(fieldErrors.immutable(child(path, 'deletionTimestamp'), newMeta.deletionTimestamp ?? null));
  }

  if (!absent(oldM.deletionTimestamp) && Array.isArray(newMeta.finalizers)) {
    const before = new Set(Array.isArray(oldM.finalizers) ? oldM.finalizers : []);
    const added = [...new Set(newMeta.finalizers.filter((f) => !before.has(f)))].map(String).sort();
    if (added.length) {
      // Go's %#v of a []string, as Kubernetes prints it.
      const list = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
      errs.push(fieldErrors.forbidden(child(path, 'finalizers'),
        `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`));
    }
  }
  return errs;
}

/** ValidateNonnegativeField of an optional number at `path` (absent is Go's zero and passes). */
export function validateNonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}
