import { expect } from 'chai';
import {
  isDns1123Label, isDns1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue,
  validateName, validateObjectMeta, validateObjectMetaUpdate,
} from '../../../lib/meta/validation';
import { FieldError } from '../../../lib/meta/field-errors';

const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** A valid subdomain of exactly n characters (n >= 1). */
function subdomainOfLength(n: number): string {
  const labels: string[] = [];
  let left = n;
  while (left > 0) {
    const take = Math.min(63, left);
    labels.push('a'.repeat(take));
    left -= take + 1; // the dot
  }
  const s = labels.join('.');
  if (s.length !== n) throw new Error(`cannot build a subdomain of length ${n}`);
  return s;
}

const NS = { namespaced: true, nameValidation: 'dns-subdomain' } as const;
const CLUSTER = { namespaced: false, nameValidation: 'dns-subdomain' } as const;
const fields = (errs: FieldError[]) => errs.map((e) => e.field);

describe('isDns1123Subdomain', () => {
  it('accepts lower-case dotted names', () => {
    for (const v of ['a', '0', 'example.com', 'a-b.c-d', 'x1.y2.z3']) expect(isDns1123Subdomain(v), v).to.deep.equal([]);
  });

  it("rejects other forms with Kubernetes' message", () => {
    for (const v of ['Example.com', '-a', 'a-', 'a..b', '.a', 'a_b', '', 'a.']) {
      expect(isDns1123Subdomain(v), v).to.deep.equal([SUBDOMAIN_MSG]);
    }
  });

  it('allows 253 characters and not 254', () => {
    const ok = subdomainOfLength(253);
    expect(ok).to.have.length(253);
    expect(isDns1123Subdomain(ok)).to.deep.equal([]);
    const long = subdomainOfLength(254);
    expect(long).to.have.length(254);
    expect(isDns1123Subdomain(long)).to.deep.equal(['must be no more than 253 characters']);
  });
});

describe('isDns1123Label', () => {
  it('accepts up to 63 characters', () => {
    expect(isDns1123Label('my-name')).to.deep.equal([]);
    expect(isDns1123Label('a'.repeat(63))).to.deep.equal([]);
    expect(isDns1123Label('a'.repeat(64))).to.deep.equal(['must be no more than 63 characters']);
  });

  it('says "must not contain dots" for a subdomain that is not a label', () => {
    expect(isDns1123Label('a.b')).to.deep.equal(['must not contain dots']);
  });

  it("rejects upper case and bad ends with Kubernetes' message", () => {
    for (const v of ['A', 'a_b', '-a', 'a-', '']) expect(isDns1123Label(v), v).to.deep.equal([LABEL_MSG]);
  });
});

describe('isQualifiedName', () => {
  it('accepts names with and without a prefix', () => {
    for (const v of ['MyName', 'my.name', '123-abc', 'a_b', 'example.com/MyName', `${subdomainOfLength(253)}/x`]) {
      expect(isQualifiedName(v), v).to.deep.equal([]);
    }
  });

  it('limits the name part to 63 characters', () => {
    expect(isQualifiedName('a'.repeat(63))).to.deep.equal([]);
    expect(isQualifiedName(`example.com/${'a'.repeat(64)}`)).to.deep.equal(['name part must be no more than 63 characters']);
  });

  it('names the failing part', () => {
    expect(isQualifiedName('-a')).to.deep.equal([NAME_PART_MSG]);
    expect(isQualifiedName('/a')).to.deep.equal(['prefix part must be non-empty']);
    expect(isQualifiedName('a/')).to.deep.equal(['name part must be non-empty', NAME_PART_MSG]);
    expect(isQualifiedName('Example.com/a')).to.deep.equal([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName(`${subdomainOfLength(254)}/a`)).to.deep.equal(['prefix part must be no more than 253 characters']);
  });

  it('rejects more than one slash with a single message', () => {
    const errs = isQualifiedName('a/b/c');
    expect(errs).to.have.length(1);
    expect(errs[0]).to.match(/^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  });
});

describe('isValidLabelValue', () => {
  it('accepts empty and qualified-name-like values up to 63 characters', () => {
    for (const v of ['', 'MyValue', 'my_value', '12345', 'a.b-c', 'x'.repeat(63)]) expect(isValidLabelValue(v), v).to.deep.equal([]);
  });

  it('rejects long or malformed values', () => {
    expect(isValidLabelValue('x'.repeat(64))).to.deep.equal(['must be no more than 63 characters']);
    expect(isValidLabelValue('-a')).to.deep.equal([LABEL_VALUE_MSG]);
    expect(isValidLabelValue('a b')).to.deep.equal([LABEL_VALUE_MSG]);
    expect(isValidLabelValue('a/b')).to.deep.equal([LABEL_VALUE_MSG]);
  });
});

describe('isPathSegmentName', () => {
  it("rejects '.', '..', '/' and '%'", () => {
    expect(isPathSegmentName('.')).to.deep.equal(["may not be '.'"]);
    expect(isPathSegmentName('..')).to.deep.equal(["may not be '..'"]);
    expect(isPathSegmentName('a/b')).to.deep.equal(["may not contain '/'"]);
    expect(isPathSegmentName('a%/b')).to.deep.equal(["may not contain '/'", "may not contain '%'"]);
  });

  it('accepts anything else, and dots as a prefix', () => {
    for (const v of ['a.b', 'A:B', 'system:admin', '...']) expect(isPathSegmentName(v), v).to.deep.equal([]);
    expect(isPathSegmentName('.', true)).to.deep.equal([]);
    expect(isPathSegmentName('a/', true)).to.deep.equal(["may not contain '/'"]);
  });
});

describe('validateName', () => {
  it('lets a generateName prefix end in a dash', () => {
    expect(validateName('web-', 'dns-subdomain', true)).to.deep.equal([]);
    expect(validateName('web-', 'dns-label', true)).to.deep.equal([]);
    expect(validateName('web-', 'dns-subdomain')).to.deep.equal([SUBDOMAIN_MSG]);
    expect(validateName('Web-', 'dns-subdomain', true)).to.deep.equal([SUBDOMAIN_MSG]);
  });

  it("masks the last two characters of a dash-ended prefix, as Kubernetes' maskTrailingDash does", () => {
    // The character before the dash is not checked; the generated name is validated again.
    expect(validateName('a_-', 'dns-subdomain', true)).to.deep.equal([]);
    expect(validateName('a_b-', 'dns-subdomain', true)).to.deep.equal([SUBDOMAIN_MSG]);
    expect(validateName('-', 'dns-label', true)).to.deep.equal([LABEL_MSG]);
  });
});

describe('validateObjectMeta', () => {
  it('accepts well-formed metadata', () => {
    expect(validateObjectMeta({
      name: 'web', namespace: 'default',
      labels: { app: 'web', 'example.com/tier': '' },
      annotations: { 'Example.COM/Note': 'any text at all' },
      finalizers: ['example.com/cleanup', 'kubernetes', 'kubernetes'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    }, NS)).to.deep.equal([]);
  });

  it('requires a name or a generateName', () => {
    expect(validateObjectMeta({ namespace: 'default' }, NS)).to.deep.equal([{
      type: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required',
    }]);
    expect(validateObjectMeta(undefined, CLUSTER)).to.deep.equal([{
      type: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required',
    }]);
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, NS)).to.deep.equal([]);
  });

  it('reports an invalid name with the exact Kubernetes text', () => {
    expect(validateObjectMeta({ name: 'Bad_Name', namespace: 'default' }, NS)).to.deep.equal([{
      type: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`,
    }]);
  });

  it('checks generateName as a prefix', () => {
    expect(validateObjectMeta({ generateName: 'Web-' }, CLUSTER)).to.deep.equal([{
      type: 'FieldValueInvalid', field: 'metadata.generateName', message: `Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
    }]);
  });

  it("applies the kind's name rule", () => {
    const label = { namespaced: false, nameValidation: 'dns-label' } as const;
    expect(validateObjectMeta({ name: 'a.b' }, label)[0].message).to.equal('Invalid value: "a.b": must not contain dots');
    expect(validateObjectMeta({ name: 'a.b' }, CLUSTER)).to.deep.equal([]);
    const seg = { namespaced: false, nameValidation: 'path-segment' } as const;
    expect(validateObjectMeta({ name: 'system:admin' }, seg)).to.deep.equal([]);
    expect(validateObjectMeta({ name: '..' }, seg)[0].message).to.equal('Invalid value: "..": may not be \'..\'');
  });

  it('requires a DNS-label namespace on namespaced kinds', () => {
    expect(validateObjectMeta({ name: 'a' }, NS)).to.deep.equal([{ type: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }]);
    const errs = validateObjectMeta({ name: 'a', namespace: 'my.ns' }, NS);
    expect(errs).to.deep.equal([{ type: 'FieldValueInvalid', field: 'metadata.namespace', message: 'Invalid value: "my.ns": must not contain dots' }]);
  });

  it('forbids a namespace on cluster-scoped kinds', () => {
    expect(validateObjectMeta({ name: 'a', namespace: 'default' }, CLUSTER)).to.deep.equal([{
      type: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type',
    }]);
  });

  it('checks label keys and values under metadata.labels', () => {
    const errs = validateObjectMeta({ name: 'a', labels: { 'bad key': 'ok', good: 'x'.repeat(64) } }, CLUSTER);
    expect(errs).to.deep.equal([
      { type: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "bad key": ${NAME_PART_MSG}` },
      { type: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters` },
    ]);
  });

  it('reports wrong JSON types as FieldValueTypeInvalid', () => {
    expect(validateObjectMeta({ name: 'a', labels: { a: 1 } }, CLUSTER)).to.deep.equal([
      { type: 'FieldValueTypeInvalid', field: 'metadata.labels[a]', message: 'Invalid value: 1: must be of type string' },
    ]);
    expect(fields(validateObjectMeta({ name: 'a', labels: ['x'], annotations: 'y', finalizers: 'z', ownerReferences: {} }, CLUSTER)))
      .to.deep.equal(['metadata.labels', 'metadata.annotations', 'metadata.ownerReferences', 'metadata.finalizers']);
    expect(validateObjectMeta({ name: 5 }, CLUSTER)).to.deep.equal([
      { type: 'FieldValueTypeInvalid', field: 'metadata.name', message: 'Invalid value: 5: must be of type string' },
    ]);
    expect(validateObjectMeta('x', CLUSTER)[0]).to.include({ type: 'FieldValueTypeInvalid', field: 'metadata' });
  });

  it('checks annotation keys case-insensitively', () => {
    expect(validateObjectMeta({ name: 'a', annotations: { 'EXAMPLE.com/Key': 'v' } }, CLUSTER)).to.deep.equal([]);
    const errs = validateObjectMeta({ name: 'a', annotations: { 'a/b/c': 'v' } }, CLUSTER);
    expect(errs).to.have.length(1);
    expect(errs[0]).to.include({ type: 'FieldValueInvalid', field: 'metadata.annotations' });
  });

  it('limits annotations to 262144 bytes in all', () => {
    const limit = 262144;
    expect(validateObjectMeta({ name: 'a', annotations: { k: 'v'.repeat(limit - 1) } }, CLUSTER)).to.deep.equal([]);
    const tooLong = [{ type: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }];
    expect(validateObjectMeta({ name: 'a', annotations: { k: 'v'.repeat(limit) } }, CLUSTER)).to.deep.equal(tooLong);
    // Bytes, not characters: 131072 two-byte characters plus a one-byte key is 262145 bytes.
    expect(validateObjectMeta({ name: 'a', annotations: { k: 'é'.repeat(limit / 2) } }, CLUSTER)).to.deep.equal(tooLong);
  });

  it('checks finalizer names but allows duplicates and unprefixed names', () => {
    expect(validateObjectMeta({ name: 'a', finalizers: ['x', 'x', 'example.com/y'] }, CLUSTER)).to.deep.equal([]);
    const errs = validateObjectMeta({ name: 'a', finalizers: ['ok', 'a/b/c'] }, CLUSTER);
    expect(errs).to.have.length(1);
    expect(errs[0]).to.include({ type: 'FieldValueInvalid', field: 'metadata.finalizers' });
    expect(errs[0].message).to.match(/^Invalid value: "a\/b\/c": a qualified name/);
  });

  it('rejects orphan together with foregroundDeletion', () => {
    expect(validateObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, CLUSTER)).to.deep.equal([{
      type: 'FieldValueInvalid', field: 'metadata.finalizers',
      message: 'Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    }]);
  });

  it('requires apiVersion, kind, name and uid on owner references', () => {
    expect(validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: 'apps/', kind: '' }] }, CLUSTER)).to.deep.equal([
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "apps/": version must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.kind', message: 'Invalid value: "": kind must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.name', message: 'Invalid value: "": name must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": uid must not be empty' },
    ]);
  });

  it('allows one controller reference only', () => {
    const ref = (name: string, controller: boolean) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: name, controller });
    expect(validateObjectMeta({ name: 'a', ownerReferences: [ref('one', true), ref('two', false)] }, CLUSTER)).to.deep.equal([]);
    const errs = validateObjectMeta({ name: 'a', ownerReferences: [ref('one', true), ref('two', true)] }, CLUSTER);
    expect(errs).to.have.length(1);
    expect(errs[0].field).to.equal('metadata.ownerReferences');
    expect(errs[0].message).to.match(/: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/one and ReplicaSet\/two$/);
  });

  it('bans core v1 Events as owners', () => {
    const errs = validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, CLUSTER);
    expect(errs).to.have.length(1);
    expect(errs[0].message).to.match(/: \/v1, Kind=Event is disallowed from being an owner$/);
  });

  it('does not modify its input', () => {
    const meta = Object.freeze({ generateName: 'x-', labels: Object.freeze({ a: 'b' }) });
    expect(() => validateObjectMeta(meta, CLUSTER)).not.to.throw();
    expect(meta).to.deep.equal({ generateName: 'x-', labels: { a: 'b' } });
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', finalizers: ['f1'] };

  it('accepts an unchanged identity', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { x: 'y' } }, old)).to.deep.equal([]);
  });

  it('keeps name, namespace, uid and creationTimestamp immutable', () => {
    expect(validateObjectMetaUpdate({ ...old, name: 'b' }, old)).to.deep.equal([
      { type: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "b": field is immutable' },
    ]);
    expect(fields(validateObjectMetaUpdate({ ...old, namespace: 'other', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z' }, old)))
      .to.deep.equal(['metadata.namespace', 'metadata.uid', 'metadata.creationTimestamp']);
  });

  it('treats an omitted uid or creationTimestamp as carried over', () => {
    expect(validateObjectMetaUpdate({ name: 'a', namespace: 'ns' }, old)).to.deep.equal([]);
  });

  it('lets deletionTimestamp be set, but not changed or removed', () => {
    const ts = '2024-02-02T00:00:00Z';
    expect(validateObjectMetaUpdate({ ...old, deletionTimestamp: ts }, old)).to.deep.equal([]);
    const deleting = { ...old, deletionTimestamp: ts };
    expect(validateObjectMetaUpdate(deleting, deleting)).to.deep.equal([]);
    expect(validateObjectMetaUpdate({ ...old, deletionTimestamp: '2024-03-03T00:00:00Z' }, deleting)).to.deep.equal([
      { type: 'FieldValueInvalid', field: 'metadata.deletionTimestamp', message: 'Invalid value: "2024-03-03T00:00:00Z": field is immutable' },
    ]);
    expect(validateObjectMetaUpdate(old, deleting)).to.deep.equal([
      { type: 'FieldValueInvalid', field: 'metadata.deletionTimestamp', message: 'Invalid value: null: field is immutable' },
    ]);
  });

  it('forbids new finalizers once deletion has started', () => {
    const deleting = { ...old, deletionTimestamp: '2024-02-02T00:00:00Z' };
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: ['f1', 'z', 'b'] }, deleting)).to.deep.equal([{
      type: 'FieldValueForbidden', field: 'metadata.finalizers',
      message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "z"}',
    }]);
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).to.deep.equal([]);
    expect(validateObjectMetaUpdate({ ...old, finalizers: ['f1', 'f2'] }, old)).to.deep.equal([]);
  });
});
