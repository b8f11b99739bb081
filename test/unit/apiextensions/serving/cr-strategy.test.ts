import { expect } from 'chai';
import { buildCrServing } from '../../../../lib/apiextensions/serving/cr-resource-def';
import { ApiError } from '../../../../lib/meta/api-errors';
import { formatFieldError } from '../../../../lib/meta/field-errors';
import { flavors } from '../../../../lib/naming';
import { ApiObject, ResourceDef, StrategyContext } from '../../../../lib/scheme/types';
import { CronTabOptions, cronTab, cronTabCrd } from '../../../helpers/crd-fixtures';

const defOf = (opts: CronTabOptions = {}, version = 'v1'): ResourceDef => buildCrServing(cronTabCrd(opts), { naming: flavors.kubernetes }).defs.get(version)!;
const ctx = (): StrategyContext & { warnings: string[] } => {
  const warnings: string[] = [];
  return { namespace: 'default', warnings, warn: (m) => warnings.push(m) };
};
const msgs = (errs: { field: string; message: string }[]) => errs.map((e) => formatFieldError(e as never));
const create = (def: ResourceDef, obj: ApiObject) => { def.strategy.prepareForCreate!(obj, ctx()); return obj; };

describe('custom-resource strategy', () => {
  it('prunes unknown fields and applies schema defaults on create', () => {
    const obj = create(defOf(), cronTab('a', { image: 'x', bogus: 1 }, { extra: true }));
    expect(obj.spec).to.deep.equal({ image: 'x', color: 'red' });
    expect(obj).to.not.have.property('extra');
  });

  it('drops status on create only with the status subresource', () => {
    expect(create(defOf({ status: true }), cronTab('a', {}, { status: { phase: 'x' } }))).to.not.have.property('status');
    expect(create(defOf(), cronTab('a', {}, { status: { phase: 'x' } })).status).to.deep.equal({ phase: 'x' });
  });

  it('keeps the stored status on a main update with /status (or drops status when there was none)', () => {
    const s = defOf({ status: true }).strategy;
    const old = cronTab('a', { color: 'red' }, { status: { phase: 'Running' } });
    const obj = cronTab('a', { color: 'red' }, { status: { phase: 'Hacked' } });
    s.prepareForUpdate!(obj, old, ctx());
    expect(obj.status).to.deep.equal({ phase: 'Running' });
    const noStatus = cronTab('a', { color: 'red' }, { status: { phase: 'New' } });
    s.prepareForUpdate!(noStatus, cronTab('a', { color: 'red' }), ctx());
    expect(noStatus).to.not.have.property('status');
  });

  it('bumps generation on a change outside metadata; with /status a status change is not one', () => {
    const withStatus = defOf({ status: true }).strategy;
    const base = cronTab('a', { color: 'red' }, { status: { phase: 'A' } });
    expect(withStatus.specChanged!(cronTab('a', { color: 'blue' }, { status: { phase: 'A' } }), base)).to.equal(true);
    expect(withStatus.specChanged!(cronTab('a', { color: 'red' }, { status: { phase: 'B' } }), base)).to.equal(false);
    expect(withStatus.specChanged!({ ...cronTab('a', { color: 'red' }, { status: { phase: 'A' } }), metadata: { name: 'a', labels: { x: 'y' } } }, base)).to.equal(false);
    const without = defOf().strategy;
    expect(without.specChanged!(cronTab('a', { color: 'red' }, { status: { phase: 'B' } }), base)).to.equal(true);
    expect(without.specChanged!(cronTab('a', { color: 'red' }, { status: { phase: 'A' }, other: 1 }), base)).to.equal(true);
  });

  it('does not read a default added to the schema since the object was stored as a spec change', () => {
    const s = defOf().strategy;
    const old = cronTab('a', { image: 'x' });
    const obj = cronTab('a', { image: 'x' });
    s.prepareForUpdate!(obj, old, ctx());
    expect(s.specChanged!(obj, old)).to.equal(false);
  });

  it('validates against the schema with Kubernetes field paths and messages', () => {
    const def = defOf();
    const obj = create(def, cronTab('a', { replicas: 20, color: 'pink', cronSpec: 'nope', ports: [{ port: 1 }] }));
    expect(msgs(def.strategy.validate!(obj, ctx()))).to.have.members([
      'spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10',
      'spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"',
      "spec.cronSpec: Invalid value: \"nope\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.ports[0].name: Required value',
    ]);
    const typed = create(def, cronTab('b', { replicas: 'three' }));
    expect(msgs(def.strategy.validate!(typed, ctx()))).to.deep.equal(['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']);
  });

  it('reports duplicate keys of map lists', () => {
    const def = defOf();
    const obj = create(def, cronTab('a', { ports: [{ name: 'http' }, { name: 'http' }] }));
    const errs = def.strategy.validate!(obj, ctx());
    expect(errs.map((e) => [e.field, e.type])).to.deep.equal([['spec.ports[1]', 'FieldValueDuplicate']]);
  });

  it('checks kind and apiVersion (TypeMeta) first', () => {
    const def = defOf();
    expect(msgs(def.strategy.validate!({ ...cronTab('a'), kind: 'Other', apiVersion: 'stable.example.com/v2' }, ctx()))).to.deep.equal([
      'kind: Invalid value: "Other": must be CronTab',
      'apiVersion: Invalid value: "stable.example.com/v2": must be stable.example.com/v1',
    ]);
  });

  it('validates only status on a write through /status', () => {
    const def = defOf({ status: true });
    const sub = def.subresources.find((r) => r.name === 'status')!;
    const current = cronTab('a', { replicas: 99 }, { status: { phase: 'A' } });
    const next = sub.applyUpdate!(cronTab('a', { replicas: 1 }, { status: { phase: 7 } }), current);
    expect(next.spec).to.deep.equal({ replicas: 99 });
    expect(msgs(def.strategy.validateUpdate!(next, current, ctx()))).to.deep.equal([
      // kube-openapi names the field relative to the status value it validates.
      'status.phase: Invalid value: "integer": phase in body must be of type string: "integer"',
    ]);
    const ok = sub.applyUpdate!(cronTab('a', {}, { status: { phase: 'B' } }), current);
    expect(def.strategy.validateUpdate!(ok, current, ctx())).to.deep.equal([]);
    expect(sub.applyUpdate!(cronTab('a', { replicas: 1 }), current)).to.not.have.property('status');
  });

  it('validates the scale paths: non-negative int32 replicas and a string selector', () => {
    const def = defOf({ scale: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
    const errs = (spec: unknown, status: unknown) => msgs(def.strategy.validate!(cronTab('a', spec as never, { status }), ctx()));
    expect(errs({ replicas: -1 }, {})).to.deep.equal(['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    expect(errs({ replicas: 2147483648 }, {})).to.deep.equal(['.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647']);
    expect(errs({ replicas: 'x' }, { replicas: 1.5, labelSelector: 3 })).to.deep.equal([
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64',
      '.status.replicas: Invalid value: 0: .status.replicas accessor error: 1.5 is of the type float64, expected int64',
      '.status.labelSelector: Invalid value: "": .status.labelSelector accessor error: 3 is of the type int64, expected string',
    ]);
    expect(errs({ replicas: 3 }, { replicas: 1, labelSelector: 'app=x' })).to.deep.equal([]);
  });

  it('warns about finalizer names without a domain, only for added ones', () => {
    const def = defOf();
    const c = ctx();
    def.strategy.validate!(cronTab('a', {}, { metadata: { name: 'a', finalizers: ['example.com/keep', 'mine', 'a.b', 'orphan'] } }), c);
    expect(c.warnings).to.deep.equal([
      'metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
      'metadata.finalizers: "mine": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
    const u = ctx();
    def.strategy.validateUpdate!(cronTab('a', {}, { metadata: { name: 'a', finalizers: ['mine', 'new'] } }), cronTab('a', {}, { metadata: { name: 'a', finalizers: ['mine'] } }), u);
    expect(u.warnings).to.deep.equal(['metadata.finalizers: "new": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers']);
  });

  it('refuses creates while the CRD terminates (403), but not updates', () => {
    const def = defOf({ terminating: true });
    let err: unknown;
    try { create(def, cronTab('a')); } catch (e) { err = e; }
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).code).to.equal(403);
    expect((err as ApiError).message).to.equal('crontabs.stable.example.com "a" is forbidden: create not allowed while custom resource definition is terminating');
    expect(def.verbs).to.include.members(['update', 'patch']);
    expect(() => def.strategy.prepareForUpdate!(cronTab('a'), cronTab('a'), ctx())).to.not.throw();
  });

  it('allows neither create on update nor unconditional update', () => {
    const s = defOf().strategy;
    expect(s.allowCreateOnUpdate).to.equal(false);
    expect(s.allowUnconditionalUpdate).to.equal(false);
  });

  it('serves selectable fields to field selectors', () => {
    const s = defOf({ selectableFields: ['.spec.color', '.spec.replicas'] }).strategy;
    expect(s.selectableFields).to.deep.equal(['spec.color', 'spec.replicas']);
    expect(s.fieldSet!(cronTab('a', { color: 'blue', replicas: 3 }))).to.deep.equal({ 'spec.color': 'blue', 'spec.replicas': '3' });
    expect(defOf().strategy.selectableFields).to.deep.equal([]);
  });

  it('defaults on read (versioning) without touching the stored object; stored bytes served as they are when nothing can change', async () => {
    const def = defOf();
    const stored = cronTab('a', { image: 'x' });
    expect((await def.versioning!.fromStorage([stored]))[0].spec).to.deep.equal({ image: 'x', color: 'red' });
    expect(stored.spec).to.deep.equal({ image: 'x' });
    const bytes = Buffer.from(JSON.stringify(stored));
    expect(def.versioning!.servesStored(bytes)).to.equal(false);
    const plain = defOf({ schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } });
    expect(plain.strategy.decorate).to.equal(undefined);
    expect(plain.versioning!.servesStored(bytes)).to.equal(true);
    expect((await plain.versioning!.fromStorage([stored]))[0]).to.equal(stored);
  });

  it('re-defaults after a mutating webhook (default hook)', () => {
    const obj = cronTab('a', { image: 'y', junk: 1 });
    defOf().strategy.default!(obj);
    expect(obj.spec).to.deep.equal({ image: 'y', color: 'red' });
  });
});
