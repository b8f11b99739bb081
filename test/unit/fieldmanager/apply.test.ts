import { expect } from 'chai';
import { ApiError } from '../../../lib/meta/api-errors';
import { ApiObject } from '../../../lib/scheme/types';
import { DATA, at, applied, cm, created, entries, entry, owners, updated } from './fixtures';

/** The ApiError `fn` throws. */
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const ref = (uid: string, name = 'p') => ({ apiVersion: 'v1', kind: 'Pod', name, uid });

describe('applyConfig: the field-ownership table', () => {
  it('field owned by A, apply by B with a different value, no force: 409, nothing changes', () => {
    const live = created(cm({ key: 'v' }), 'kubectl-client-side-apply', at(0));
    const before = structuredClone(live);
    const err = thrown(() => applied(live, cm({ key: 'w' }), 'B', at(10)));
    expect(err.code).to.equal(409);
    expect(err.reason).to.equal('Conflict');
    expect(err.message).to.equal('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
    expect(err.toStatus()).to.deep.include({
      status: 'Failure', code: 409, reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.key' }] },
    });
    expect(live).to.deep.equal(before);
  });

  it('lists several conflicts grouped by manager, one cause per field', () => {
    let live = applied(undefined, cm({ a: '1', b: '1' }), 'A', at(0));
    live = updated(live, cm({ a: '1', b: '1', c: '1' }), 'U', at(5));
    const err = thrown(() => applied(live, cm({ a: '2', b: '2', c: '2', d: 'new' }), 'B', at(10)));
    expect(err.message).to.equal('Apply failed with 3 conflicts: conflicts with "A":\n- .data.a\n- .data.b\nconflicts with "U" using v1:\n- .data.c');
    expect(err.details?.causes).to.deep.equal([
      { reason: 'FieldManagerConflict', message: 'conflict with "A"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "A"', field: '.data.b' },
      { reason: 'FieldManagerConflict', message: 'conflict with "U" using v1', field: '.data.c' },
    ]);
  });

  it('with force=true: B takes the value and sole ownership, A loses the field', () => {
    const live = applied(undefined, cm({ key: 'v', other: 'o' }), 'A', at(0));
    const obj = applied(live, cm({ key: 'w' }), 'B', at(10), true);
    expect(obj.data).to.deep.equal({ key: 'w', other: 'o' });
    expect(owners(obj, DATA('key'))).to.deep.equal(['B/Apply']);
    expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:other': {} } });
  });

  it('apply by B with the same value: shared by A and B', () => {
    const live = created(cm({ key: 'v' }), 'A', at(0));
    const obj = applied(live, cm({ key: 'v' }), 'B', at(10));
    expect(owners(obj, DATA('key'))).to.deep.equal(['A/Update', 'B/Apply']);
    expect(obj.data).to.deep.equal({ key: 'v' });
  });

  it('A applies without a shared field: A no longer owns it, the value is kept', () => {
    let obj = applied(undefined, cm({ key: 'v', mine: 'm' }), 'A', at(0));
    obj = applied(obj, cm({ key: 'v' }), 'B', at(5));
    obj = applied(obj, cm({ mine: 'm' }), 'A', at(10));
    expect(obj.data).to.deep.equal({ key: 'v', mine: 'm' });
    expect(owners(obj, DATA('key'))).to.deep.equal(['B/Apply']);
  });

  it('A applies without a field an Update manager also owns: the value is kept', () => {
    let obj = applied(undefined, cm({ key: 'v', mine: 'm' }), 'A', at(0));
    obj = updated(obj, cm({ key: 'changed', mine: 'm' }), 'U', at(5));
    obj = applied(obj, cm({ mine: 'm' }), 'A', at(10));
    expect(obj.data).to.deep.equal({ key: 'changed', mine: 'm' });
    expect(owners(obj, DATA('key'))).to.deep.equal(['U/Update']);
  });

  it('A applies without a field only A owned: the field is removed (Kubernetes)', () => {
    let obj = applied(undefined, cm({ key: 'v', mine: 'm' }, { labels: { app: 'x' } }), 'A', at(0));
    obj = applied(obj, cm({ mine: 'm' }), 'A', at(10));
    expect(obj.data).to.deep.equal({ mine: 'm' });
    expect(obj.metadata?.labels).to.equal(undefined);
    expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:mine': {} } });
    obj = applied(obj, cm(), 'A', at(20));
    expect(obj).to.not.have.property('data');
    expect(obj.metadata).to.not.have.property('managedFields');
    expect(obj.metadata).to.include({ name: 'cfg', namespace: 'default' });
  });

  it('a field shared by several managers, changed by an apply without force: conflict', () => {
    let obj = applied(undefined, cm({ key: 'v' }), 'A', at(0));
    obj = applied(obj, cm({ key: 'v' }), 'B', at(5));
    expect(thrown(() => applied(obj, cm({ key: 'w' }), 'B', at(10))).message)
      .to.equal('Apply failed with 1 conflict: conflict with "A": .data.key');
    expect(thrown(() => applied(obj, cm({ key: 'w' }), 'A', at(10))).message)
      .to.equal('Apply failed with 1 conflict: conflict with "B": .data.key');
  });

  it('an Update entry of the applier itself conflicts like any other manager', () => {
    const live = created(cm({ key: 'v' }), 'kubectl', at(0));
    expect(thrown(() => applied(live, cm({ key: 'w' }), 'kubectl', at(10))).message)
      .to.equal('Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.key');
  });

  it('hands a field from a user to a controller through a temporary manager (spec point 7)', () => {
    let obj = applied(undefined, cm({ replicas: '3', other: 'o' }), 'kubectl', at(0));
    obj = applied(obj, cm({ replicas: '3' }), 'handover-to-hpa', at(10));
    expect(owners(obj, DATA('replicas'))).to.deep.equal(['handover-to-hpa/Apply', 'kubectl/Apply']);
    obj = applied(obj, cm({ other: 'o' }), 'kubectl', at(20));
    expect(obj.data).to.deep.equal({ replicas: '3', other: 'o' });
    expect(owners(obj, DATA('replicas'))).to.deep.equal(['handover-to-hpa/Apply']);
    obj = updated(obj, cm({ replicas: '5', other: 'o' }), 'hpa-controller', at(30));
    expect(entries(obj).map((e) => `${e.manager}/${e.operation}`)).to.deep.equal(['kubectl/Apply', 'hpa-controller/Update']);
    expect(owners(obj, DATA('replicas'))).to.deep.equal(['hpa-controller/Update']);
  });
});

describe('applyConfig', () => {
  it('creates a missing object; the Apply entry records exactly the configuration', () => {
    const obj = applied(undefined, cm({ key: 'v' }, { labels: { app: 'x' } }), 'kubectl', at(7));
    expect(obj).to.deep.equal({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: 'cfg', namespace: 'default', labels: { app: 'x' },
        managedFields: [{
          manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: at(7), fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        }],
      },
      data: { key: 'v' },
    });
  });

  it('does not modify its inputs and keeps fields of the live object the config does not mention', () => {
    const live = created(cm({ a: '1' }, { uid: 'u', resourceVersion: '4' }), 'A', at(0));
    const config = cm({ b: '2' });
    const [l, c] = [structuredClone(live), structuredClone(config)];
    const obj = applied(live, config, 'B', at(10));
    expect([live, config]).to.deep.equal([l, c]);
    expect(obj.data).to.deep.equal({ a: '1', b: '2' });
    expect(obj.metadata).to.include({ uid: 'u', resourceVersion: '4' });
  });

  it('keeps the entry time when the apply changes nothing', () => {
    let obj = applied(undefined, cm({ key: 'v' }), 'A', at(0));
    obj = applied(obj, cm({ key: 'v' }), 'A', at(10));
    expect(entry(obj, 'A')?.time).to.equal(at(0));
    obj = applied(obj, cm({ key: 'w' }), 'A', at(20));
    expect(entry(obj, 'A')?.time).to.equal(at(20));
  });

  it('records the subresource it was applied through', () => {
    const obj = applied(cm(), cm({ key: 'v' }), 'ctl', at(0), false, { subresource: 'status' });
    expect(entries(obj)[0]).to.deep.include({ manager: 'ctl', operation: 'Apply', subresource: 'status' });
  });

  describe('guards', () => {
    it('refuses a configuration with managedFields (400); null is accepted', () => {
      const err = thrown(() => applied(undefined, cm({ a: '1' }, { managedFields: [] }), 'A', at(0)));
      expect([err.code, err.reason, err.message]).to.deep.equal([400, 'BadRequest', 'metadata.managedFields must be nil']);
      expect(applied(undefined, cm({ a: '1' }, { managedFields: null }), 'A', at(0)).data).to.deep.equal({ a: '1' });
    });

    it('refuses a configuration of another type (400)', () => {
      const secret = { ...cm({ a: '1' }), kind: 'Secret' };
      expect(thrown(() => applied(undefined, secret, 'A', at(0))).message).to.equal('invalid object type: /v1, Kind=Secret');
      const apps = { ...cm({ a: '1' }), apiVersion: 'apps/v1' };
      expect(thrown(() => applied(undefined, apps, 'A', at(0))).message).to.equal('invalid object type: apps/v1, Kind=ConfigMap');
    });

    it('refuses containers that do not fit the schema: 400 with Kubernetes\' words (it answers 500, an open bug)', () => {
      const noUid = cm(undefined, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }] });
      const err = thrown(() => applied(undefined, noUid, 'A', at(0)));
      expect(err.code).to.equal(400);
      expect(err.reason).to.equal('BadRequest');
      expect(err.message).to.equal('failed to create typed patch object (default/cfg; /v1, Kind=ConfigMap): '
        + '.metadata.ownerReferences: element 0: associative list with keys has an element that omits key field "uid" (and doesn\'t have default value)');
      const notMap = { ...cm(), data: 'x' } as ApiObject;
      expect(thrown(() => applied(undefined, notMap, 'A', at(0))).message).to.match(/: \.data: expected map, got string$/);
      const dup = cm(undefined, { finalizers: ['a', 'a'] });
      expect(thrown(() => applied(undefined, dup, 'A', at(0))).message).to.match(/\.metadata\.finalizers: duplicate entries for key \[="a"\]$/);
    });

    it('drops fields the schema does not declare (fieldValidation is the handler\'s)', () => {
      const obj = applied(undefined, { ...cm({ a: '1' }), status: { x: 1 } }, 'A', at(0));
      expect(obj).to.not.have.property('status');
      expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} } });
    });
  });

  describe('lists', () => {
    it('ownerReferences (map list keyed by uid): each applier owns its items', () => {
      let obj = applied(undefined, cm(undefined, { ownerReferences: [ref('u1')] }), 'A', at(0));
      obj = applied(obj, cm(undefined, { ownerReferences: [ref('u2')] }), 'B', at(5));
      expect(obj.metadata?.ownerReferences?.map((r) => r.uid)).to.deep.equal(['u1', 'u2']);
      expect(owners(obj, ['f:metadata', 'f:ownerReferences', 'k:{"uid":"u1"}'])).to.deep.equal(['A/Apply']);
      expect(owners(obj, ['f:metadata', 'f:ownerReferences', 'k:{"uid":"u2"}'])).to.deep.equal(['B/Apply']);

      const err = thrown(() => applied(obj, cm(undefined, { ownerReferences: [ref('u1', 'other')] }), 'B', at(8)));
      expect(err.message).to.equal('Apply failed with 1 conflict: conflict with "A": .metadata.ownerReferences[uid="u1"]');

      obj = applied(obj, cm(), 'A', at(10));
      expect(obj.metadata?.ownerReferences?.map((r) => r.uid)).to.deep.equal(['u2']);
    });

    it('finalizers (set): items merged and owned one by one', () => {
      let obj = applied(undefined, cm(undefined, { finalizers: ['a'] }), 'A', at(0));
      obj = applied(obj, cm(undefined, { finalizers: ['b'] }), 'B', at(5));
      expect(obj.metadata?.finalizers).to.deep.equal(['a', 'b']);
      expect(entry(obj, 'A')?.fieldsV1).to.deep.equal({ 'f:metadata': { 'f:finalizers': { 'v:"a"': {} } } });
      expect(owners(obj, ['f:metadata', 'f:finalizers', 'v:"b"'])).to.deep.equal(['B/Apply']);
      obj = applied(obj, cm(), 'A', at(10));
      expect(obj.metadata?.finalizers).to.deep.equal(['b']);
      obj = applied(obj, cm(), 'B', at(20));
      expect(obj.metadata).to.not.have.property('finalizers');
    });

    it('orders merged items by the configuration, live-only items staying in place', () => {
      let obj = created(cm(undefined, { finalizers: ['a', 'b', 'c'] }), 'U', at(0));
      obj = applied(obj, cm(undefined, { finalizers: ['c', 'a'] }), 'A', at(5));
      expect(obj.metadata?.finalizers).to.deep.equal(['b', 'c', 'a']);
      obj = applied(obj, cm(undefined, { finalizers: ['d', 'b'] }), 'B', at(6));
      expect(obj.metadata?.finalizers).to.deep.equal(['d', 'b', 'c', 'a']);
    });
  });
});
