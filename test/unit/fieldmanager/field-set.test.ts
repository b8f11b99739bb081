import { expect } from 'chai';
import { FieldPathError } from '../../../lib/fieldmanager/field-path';
import { FieldSet } from '../../../lib/fieldmanager/field-set';
import { fieldsOf, toFieldSet } from '../../../lib/fieldmanager/to-field-set';
import { Schema, mapList, object, setList, str } from '../../../lib/scheme/schema';
import { configMapSchema } from '../../../lib/registry/core/configmaps/schema';
import { namespaceSchema } from '../../../lib/registry/core/namespaces/schema';

const keysOf = (s: FieldSet) => s.keyPaths().map((p) => p.join(' '));

describe('FieldSet fieldsV1 encoding', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['nested struct fields and map keys', { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
    ['a member with children carries "."', { 'f:data': { '.': {}, 'f:key': {} } }],
    ['list-map items keyed by several fields, with "." and their fields', {
      'f:spec': { 'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} }, 'k:{"port":443,"protocol":"TCP"}': {} } },
    }],
    ['set values of several JSON types', { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a"': {}, 'v:"b"': {} } }, 'f:nums': { 'v:1': {}, 'v:true': {} } }],
    ['indices', { 'f:list': { 'i:0': {}, 'i:2': { 'f:x': {} } } }],
    ['empty', {}],
  ];
  for (const [name, v] of cases) {
    it(`round-trips ${name}`, () => {
      expect(FieldSet.fromFieldsV1(v).toFieldsV1()).to.deep.equal(v);
    });
  }

  it('puts "." first and sorts keys: fields, then keys, then values', () => {
    const v = FieldSet.of(['f:x', 'f:b'], ['f:x'], ['f:x', 'f:a']).toFieldsV1();
    expect(Object.keys(v['f:x'] as object)).to.deep.equal(['.', 'f:a', 'f:b']);
  });

  it('reads a key as the member it names: `{}`, only ".", or with children', () => {
    const s = FieldSet.fromFieldsV1({ 'f:a': {}, 'f:b': { '.': {} }, 'f:c': { '.': {}, 'f:d': {} }, 'f:e': { 'f:f': {} } });
    expect(keysOf(s)).to.deep.equal(['f:a', 'f:b', 'f:c', 'f:c f:d', 'f:e f:f']);
    expect(s.has(['f:e'])).to.equal(false);
  });

  it('canonicalises keys written differently by a client', () => {
    const s = FieldSet.fromFieldsV1({ 'f:ports': { 'k:{"protocol": "TCP", "port": 80}': {} } });
    expect(s.has(['f:ports', 'k:{"port":80,"protocol":"TCP"}'])).to.equal(true);
    expect(s.has([{ field: 'ports' }, { key: { protocol: 'TCP', port: 80 } }])).to.equal(true);
  });

  it('escapes <, > and & in key JSON as Go does', () => {
    const s = FieldSet.of([{ field: 'm' }, { value: '<a&b>' }]);
    expect(s.toFieldsV1()).to.deep.equal({ 'f:m': { 'v:"\\u003ca\\u0026b\\u003e"': {} } });
    expect(FieldSet.fromFieldsV1(s.toFieldsV1()).equals(s)).to.equal(true);
  });

  it('drops keys of unknown kinds and rejects malformed ones', () => {
    expect(FieldSet.fromFieldsV1({ 'x:future': {}, 'f:a': {} }).toFieldsV1()).to.deep.equal({ 'f:a': {} });
    expect(() => FieldSet.fromFieldsV1({ nocolon: {} })).to.throw(FieldPathError, 'missing colon');
    expect(() => FieldSet.fromFieldsV1({ 'k:{bad': {} })).to.throw(FieldPathError);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).to.throw(FieldPathError);
    expect(() => FieldSet.fromFieldsV1([])).to.throw(FieldPathError);
  });
});

describe('FieldSet operations', () => {
  it('a sealed set refuses insert, and hands out one frozen fieldsV1 that operations leave alone', () => {
    const sealed = FieldSet.of(['f:data', 'f:a'], ['f:data']).seal();
    expect(() => sealed.insert(['f:data', 'f:b'])).to.throw(/sealed/);
    const v1 = sealed.toFieldsV1();
    expect(v1).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {} } });
    expect(sealed.toFieldsV1()).to.equal(v1);
    expect(Object.isFrozen(v1) && Object.isFrozen(v1['f:data'])).to.equal(true);
    const grown = sealed.union(FieldSet.of(['f:data', 'f:b'])).insert(['f:x']);
    expect(grown.toFieldsV1()).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:x': {} });
    expect(sealed.toFieldsV1()).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {} } });
  });

  const a = FieldSet.of(['f:data'], ['f:data', 'f:x'], ['f:data', 'f:y']);
  const b = FieldSet.of(['f:data', 'f:y'], ['f:data', 'f:z']);

  it('union, intersection and difference work on paths', () => {
    expect(keysOf(a.union(b))).to.deep.equal(['f:data', 'f:data f:x', 'f:data f:y', 'f:data f:z']);
    expect(keysOf(a.intersection(b))).to.deep.equal(['f:data f:y']);
    expect(keysOf(a.difference(b))).to.deep.equal(['f:data', 'f:data f:x']);
  });

  it('difference removes a parent path but not its descendants', () => {
    expect(keysOf(a.difference(FieldSet.of(['f:data'])))).to.deep.equal(['f:data f:x', 'f:data f:y']);
  });

  it('never tracks the empty path and leaves operands unchanged', () => {
    const s = FieldSet.empty().insert([]);
    expect(s.isEmpty()).to.equal(true);
    a.union(b).difference(a);
    expect(keysOf(a)).to.deep.equal(['f:data', 'f:data f:x', 'f:data f:y']);
  });

  it('lists paths members first at each level, as structured-merge-diff iterates', () => {
    const s = FieldSet.of(['f:metadata', 'f:labels', 'f:a'], ['f:data', 'f:k'], ['f:immutable']);
    expect(s.paths()).to.deep.equal([
      [{ field: 'immutable' }],
      [{ field: 'data' }, { field: 'k' }],
      [{ field: 'metadata' }, { field: 'labels' }, { field: 'a' }],
    ]);
  });
});

describe('toFieldSet / fieldsOf', () => {
  const cm = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name: 'a', namespace: 'default', uid: 'u', resourceVersion: '5', generateName: 'a-',
      labels: { app: 'x' }, finalizers: ['f1', 'f2'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1', controller: true }],
      managedFields: [{ manager: 'm' }],
    },
    data: { key: 'v' },
    immutable: false,
  };

  it('tracks map keys, set items and map-list items but not server-owned metadata', () => {
    expect(fieldsOf(cm, configMapSchema).toFieldsV1()).to.deep.equal({
      'f:data': { 'f:key': {} },
      'f:immutable': {},
      'f:metadata': {
        'f:finalizers': { 'v:"f1"': {}, 'v:"f2"': {} },
        'f:generateName': {},
        'f:labels': { 'f:app': {} },
        'f:ownerReferences': { 'k:{"uid":"u1"}': {} },
      },
    });
  });

  it('includes apiVersion, kind and metadata.name before stripping', () => {
    const raw = toFieldSet(cm, configMapSchema);
    expect(raw.has(['f:apiVersion'])).to.equal(true);
    expect(raw.has(['f:metadata', 'f:name'])).to.equal(true);
    expect(raw.has(['f:metadata'])).to.equal(false);
  });

  it('owns atomic lists whole and empty granular containers not at all', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: {} }, spec: { finalizers: ['kubernetes'] } };
    expect(fieldsOf(ns, namespaceSchema).toFieldsV1()).to.deep.equal({ 'f:spec': { 'f:finalizers': {} } });
  });

  it('reads item fields of a granular map list, with the schema default for a missing key field', () => {
    const port = object({ port: { type: 'integer' }, protocol: { ...str(), default: 'TCP' }, name: str() });
    const schema: Schema = object({ ports: mapList(port, ['port', 'protocol']), tags: setList(str()) });
    expect(fieldsOf({ ports: [{ port: 80, name: 'http' }], tags: ['a'] }, schema).toFieldsV1()).to.deep.equal({
      'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
      'f:tags': { 'v:"a"': {} },
    });
  });

  it('treats data without a schema as unstructured: keys are paths, lists atomic', () => {
    expect(toFieldSet({ spec: { a: { b: 1 }, list: [1, 2] } }, undefined).toFieldsV1()).to.deep.equal({
      'f:spec': { '.': {}, 'f:a': { '.': {}, 'f:b': {} }, 'f:list': {} },
    });
  });
});
