import { expect } from 'chai';
import { ANCIENT_CHANGES } from '../../../lib/fieldmanager/ancient-changes';
import { skeletonOf, updateManagedFields } from '../../../lib/fieldmanager/managed-fields';
import { managerIdentifier } from '../../../lib/fieldmanager/manager-table';
import { configMapSchema } from '../../../lib/registry/core/configmaps/schema';
import { namespaceSchema } from '../../../lib/registry/core/namespaces/schema';
import { DATA, at, applied, cm, created, entries, entry, owners, updated } from './fixtures';
import { ApiObject } from '../../../lib/scheme/types';

describe('updateManagedFields', () => {
  describe('create', () => {
    it('records an Update entry with "." on maps the write created, nothing for server metadata', () => {
      const obj = created(cm({ key: 'v' }, { labels: { app: 'x' }, uid: 'u', resourceVersion: '1' }), 'kubectl-create', at(5));
      expect(entries(obj)).to.deep.equal([{
        manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: at(5), fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      }]);
    });

    it('records finalizers and ownerReferences per item', () => {
      const obj = created(cm(undefined, {
        finalizers: ['a', 'b'], ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' }],
      }), 'm');
      expect(entry(obj, 'm')?.fieldsV1).to.deep.equal({
        'f:metadata': {
          'f:finalizers': { '.': {}, 'v:"a"': {}, 'v:"b"': {} },
          'f:ownerReferences': { '.': {}, 'k:{"uid":"u1"}': {} },
        },
      });
    });

    it('does not mark a built-in struct as created (Go zero value), only its contents', () => {
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] } };
      const mf = updateManagedFields({ schema: namespaceSchema, next: ns, manager: 'm', apiVersion: 'v1', now: at(0) });
      expect(mf[0].fieldsV1).to.deep.equal({ 'f:spec': { 'f:finalizers': {} } });
      const crd = updateManagedFields({ schema: namespaceSchema, next: ns, manager: 'm', apiVersion: 'v1', now: at(0), builtinKind: false });
      expect(crd[0].fieldsV1).to.deep.equal({ 'f:spec': { '.': {}, 'f:finalizers': {} } });
    });

    it('creates that share what the comparison reads share its result; anything else is computed anew', () => {
      // Each pair: the first primes the schema's memo, the second must still get its own fields.
      // A copy of the schema is a schema never seen: the fields computed from scratch.
      const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'Pod', name: 'p', uid });
      const struct = (spec: unknown) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec });
      const pairs: Array<[typeof namespaceSchema, ApiObject, ApiObject]> = [
        [configMapSchema, cm({ a: '1' }), cm({ a: 'another value' })],
        [configMapSchema, cm({ a: '1' }), cm({ b: '1' })],
        [configMapSchema, cm({ a: '1' }, { labels: { x: 'y' } }), cm({ a: '1' }, { annotations: { x: 'y' } })],
        [configMapSchema, cm({ a: '1' }), cm({ a: '1' }, { finalizers: ['f'] })],
        [configMapSchema, cm({}), cm()],
        [configMapSchema, { ...cm(), data: null } as ApiObject, cm({})],
        [namespaceSchema, struct({}), struct(null)],
        [namespaceSchema, struct({}), struct('not a struct')],
        [namespaceSchema, struct(undefined), struct({ finalizers: ['kubernetes'] })],
        [namespaceSchema, struct({ finalizers: ['a'] }), struct({ finalizers: ['b'] })],
        [namespaceSchema, struct({ finalizers: ['a'] }), struct({ finalizers: ['a', 'b'] })],
        [configMapSchema, cm({ a: '1' }, { finalizers: ['1'] }), cm({ a: '1' }, { finalizers: [1] } as never)],
        [configMapSchema, cm({ a: '1' }, { finalizers: [] }), cm({ a: '1' }, { finalizers: [''] })],
        [configMapSchema, cm({}, { ownerReferences: [owner('u1')] }), cm({}, { ownerReferences: [owner('u2')] })],
        [configMapSchema, cm({}, { ownerReferences: [owner('u1')] }), cm({}, { ownerReferences: [owner('u1'), owner('u2')] })],
        [configMapSchema, cm({}, { ownerReferences: [owner('u1')] }), cm({}, { ownerReferences: [{ ...owner('u1'), controller: true }] })],
      ];
      for (const [schema, first, second] of pairs) {
        for (const builtinKind of [true, false]) {
          const args = (next: ApiObject, s: typeof schema) => ({ schema: s, next, manager: 'm', apiVersion: 'v1', now: at(0), builtinKind });
          updateManagedFields(args(first, schema));
          expect(updateManagedFields(args(second, schema)), JSON.stringify(second)).to.deep.equal(updateManagedFields(args(second, { ...schema })));
        }
      }
    });

    it('the skeleton keeps apart what the comparison tells apart, arrays whole up to a budget', () => {
      const shapes = [undefined, null, 'x', 1, true, {}, { a: 1 }, { a: {} }, { a: null }, { a: undefined }, { b: 1 }, { ab: 1 }, { a: 1, b: 1 }, { '1:a': 1 }];
      const skeletons = shapes.map(skeletonOf);
      expect(new Set(skeletons.slice(0, 2)).size).to.equal(2);
      // Scalars of any type read alike; everything else differs.
      expect(skeletons[2]).to.equal(skeletons[3]).and.to.equal(skeletons[4]);
      expect(new Set([skeletons[0], skeletons[1], skeletons[2], ...skeletons.slice(5)]).size).to.equal(shapes.length - 2);
      // Inside arrays every key and scalar counts, with its type.
      const inArrays = [[], [null], [undefined], ['x'], ['y'], [1], ['1'], [true], ['true'], [[]], [{}], [{ a: 1 }], [{ a: '1' }], [{ b: 1 }],
        ['a', 'b'], ['a,b'], [['a'], 'b'], [['a', 'b']], [{ a: null }], ['n'], ['null']];
      const arraySkeletons = inArrays.map((a) => skeletonOf({ k: a }));
      expect(arraySkeletons.every((k) => typeof k === 'string')).to.equal(true);
      expect(new Set(arraySkeletons).size).to.equal(inArrays.length);
      expect(skeletonOf({ a: { b: ['x'] } })).to.not.equal(skeletonOf({ a: { b: ['y'] } }));
      // Past the budget nothing is remembered.
      expect(skeletonOf({ a: ['x'.repeat(1000), 'y'.repeat(1000)] })).to.be.a('string');
      expect(skeletonOf({ a: ['x'.repeat(1000), 'y'.repeat(1100)] })).to.equal(undefined);
    });

    it('stores no entries for an object that sets nothing tracked', () => {
      expect(updateManagedFields({ schema: configMapSchema, next: cm(), manager: 'm', apiVersion: 'v1', now: at(0) })).to.deep.equal([]);
    });
  });

  describe('update', () => {
    const base = () => created(cm({ a: '1', b: '2' }), 'A', at(0));

    it('field owned by A, Update by B changes the value: owned by B', () => {
      const obj = updated(base(), cm({ a: '1', b: 'changed' }), 'B', at(10));
      expect(owners(obj, DATA('b'))).to.deep.equal(['B/Update']);
      expect(owners(obj, DATA('a'))).to.deep.equal(['A/Update']);
      expect(entry(obj, 'B')).to.deep.include({ operation: 'Update', apiVersion: 'v1', time: at(10) });
      expect(entry(obj, 'B')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:b': {} } });
    });

    it('a new key goes to the writer; a removed key leaves every entry', () => {
      const obj = updated(base(), cm({ a: '1', c: '3' }), 'B', at(10));
      expect(owners(obj, DATA('c'))).to.deep.equal(['B/Update']);
      expect(owners(obj, DATA('b'))).to.deep.equal([]);
      expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {} } });
    });

    it('a write that changes nothing adds no entry and keeps times', () => {
      const live = base();
      const obj = updated(live, cm({ a: '1', b: '2' }), 'B', at(10));
      expect(entries(obj)).to.deep.equal(entries(live));
    });

    it('the writer keeps its earlier fields and gets the new time', () => {
      let obj = updated(base(), cm({ a: '1', b: '2', c: '3' }), 'B', at(10));
      obj = updated(obj, cm({ a: '1', b: '2', c: '3', d: '4' }), 'B', at(20));
      expect(entry(obj, 'B')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:c': {}, 'f:d': {} } });
      expect(entry(obj, 'B')?.time).to.equal(at(20));
    });

    it('drops a manager left owning nothing', () => {
      const obj = updated(base(), cm({ a: 'x', b: 'y' }), 'B', at(10));
      expect(entries(obj).map((e) => e.manager)).to.deep.equal(['A', 'B']);
      // A still owns the map it created, none of its keys.
      expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:data': {} });
      const gone = updated(obj, cm(), 'C', at(20));
      expect(entries(gone)).to.deep.equal([]);
    });

    it('keeps one Update entry per apiVersion and records the subresource', () => {
      const live = base();
      const v2 = cm({ a: '1', b: '2', c: '3' });
      const next = structuredClone(v2);
      next.metadata!.managedFields = live.metadata!.managedFields;
      const mf = updateManagedFields({ schema: configMapSchema, live, next, manager: 'A', apiVersion: 'v2', now: at(10) });
      expect(mf.map((e) => `${e.manager} ${e.apiVersion}`)).to.deep.equal(['A v1', 'A v2']);
      const sub = updateManagedFields({ schema: configMapSchema, live, next, manager: 'A', apiVersion: 'v1', now: at(10), subresource: 'status' });
      expect(sub.map((e) => `${e.manager} ${e.subresource ?? '-'}`)).to.deep.equal(['A -', 'A status']);
      expect(sub[1].fieldsV1).to.deep.equal({ 'f:data': { 'f:c': {} } });
    });

    it('keeps the Update and Apply entries of one manager apart', () => {
      let obj = applied(undefined, cm({ a: '1' }), 'M', at(0));
      obj = updated(obj, cm({ a: '1', b: '2' }), 'M', at(10));
      expect(entries(obj).map((e) => `${e.manager}/${e.operation}`)).to.deep.equal(['M/Apply', 'M/Update']);
      expect(owners(obj, DATA('a'))).to.deep.equal(['M/Apply']);
      expect(owners(obj, DATA('b'))).to.deep.equal(['M/Update']);
    });
  });

  describe('managedFields sent by the client', () => {
    it('[{}] resets them: the writer then owns what it changed', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const next = cm({ a: '1', b: '2' }, { managedFields: [{}] });
      const obj = updated(live, next, 'B', at(10));
      expect(entries(obj)).to.have.length(1);
      expect(entry(obj, 'B')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:b': {} } });
    });

    it('[{}] with the request body: the writer owns every field of the request', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const body = cm({ a: '1', b: '2' }, { managedFields: [{}] });
      const obj = updated(live, body, 'B', at(10), { requestBody: body });
      expect(entries(obj).map((e) => e.manager)).to.deep.equal(['B']);
      expect(entry(obj, 'B')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    });

    it('[{}] alone strips managedFields', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const obj = updated(live, cm({ a: '1' }, { managedFields: [{}] }), 'B', at(10));
      expect(obj.metadata).to.not.have.property('managedFields');
    });

    it('an empty list does not reset', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const obj = updated(live, cm({ a: '1', b: '2' }, { managedFields: [] }), 'B', at(10));
      expect(entries(obj).map((e) => e.manager)).to.deep.equal(['A', 'B']);
    });

    it('a readable list replaces the live one; an unreadable one is ignored', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const mine = [{ manager: 'X', operation: 'Update', apiVersion: 'v1', time: at(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
      expect(entries(updated(live, cm({ a: '1' }, { managedFields: mine }), 'B', at(10)))).to.deep.equal(mine);
      const bad = [{ manager: 'X', operation: 'Delete', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }];
      expect(entries(updated(live, cm({ a: '1' }, { managedFields: bad }), 'B', at(10)))).to.deep.equal(entries(live));
    });

    it('through a subresource, the live list is used', () => {
      const live = created(cm({ a: '1' }), 'A', at(0));
      const obj = updated(live, cm({ a: '1' }, { managedFields: [{}] }), 'B', at(10), { subresource: 'status' });
      expect(entries(obj)).to.deep.equal(entries(live));
    });
  });

  describe('at most 10 Update managers', () => {
    it('an 11th folds the two oldest into ancient-changes', () => {
      let obj = created(cm({ k0: 'v' }), 'm0', at(0));
      for (let i = 1; i <= 10; i++) {
        obj = updated(obj, cm({ ...(obj.data as Record<string, string>), [`k${i}`]: 'v' }), `m${i}`, at(i * 10));
        if (i < 10) expect(entries(obj)).to.have.length(i + 1);
      }
      const list = entries(obj);
      expect(list).to.have.length(10);
      expect(list.map((e) => e.manager)).to.not.include.members(['m0', 'm1']);
      const bucket = entry(obj, ANCIENT_CHANGES);
      expect(bucket).to.deep.include({ operation: 'Update', apiVersion: 'v1', time: at(10) });
      expect(bucket?.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } });
      expect(list[0].manager).to.equal(ANCIENT_CHANGES);
      expect(entry(obj, 'm10')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:k10': {} } });

      obj = updated(obj, cm({ ...(obj.data as Record<string, string>), k11: 'v' }), 'm11', at(200));
      expect(entries(obj)).to.have.length(10);
      expect(entry(obj, 'm2')).to.equal(undefined);
      expect(entry(obj, ANCIENT_CHANGES)?.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
      expect(entry(obj, ANCIENT_CHANGES)?.time).to.equal(at(20));
    });

    it('does not count Apply entries', () => {
      let obj = applied(undefined, cm({ a0: 'v' }), 'ap0', at(0));
      for (let i = 1; i <= 3; i++) obj = applied(obj, cm({ [`a${i}`]: 'v' }), `ap${i}`, at(i));
      for (let i = 0; i < 10; i++) obj = updated(obj, cm({ ...(obj.data as Record<string, string>), [`u${i}`]: 'v' }), `u${i}`, at(100 + i));
      expect(entries(obj)).to.have.length(14);
      expect(entry(obj, ANCIENT_CHANGES)).to.equal(undefined);
    });
  });

  it('sorts entries as Kubernetes does: Apply first, then by time and manager', () => {
    let obj = created(cm({ a: '1' }), 'z-updater', at(0));
    obj = applied(obj, cm({ b: '2' }), 'y-applier', at(5));
    obj = updated(obj, cm({ a: '1', b: '2', c: '3' }), 'a-updater', at(5));
    expect(entries(obj).map((e) => `${e.operation} ${e.manager}`)).to.deep.equal(['Apply y-applier', 'Update z-updater', 'Update a-updater']);
  });
});

describe('managerIdentifier', () => {
  it('is the JSON of the identifying members, in Kubernetes\' order, whatever the names hold', () => {
    const cases = [
      { manager: 'kubectl', operation: 'Update' as const, apiVersion: 'v1' },
      { manager: 'kubectl', operation: 'Apply' as const, apiVersion: 'apps/v1' },
      { manager: '', operation: 'Update' as const, apiVersion: 'v1', subresource: 'status' },
      { manager: 'odd "name" \\ ü \u0001', operation: 'Update' as const, apiVersion: '', subresource: 'scale' },
    ];
    for (const c of cases) {
      const expected: Record<string, string> = {};
      if (c.manager) expected.manager = c.manager;
      expected.operation = c.operation;
      if (c.operation !== 'Apply' && c.apiVersion) expected.apiVersion = c.apiVersion;
      if (c.subresource) expected.subresource = c.subresource;
      expect(managerIdentifier(c)).to.equal(JSON.stringify(expected));
    }
  });
});
