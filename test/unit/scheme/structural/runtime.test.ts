import { expect } from 'chai';
import { parse } from 'yaml';
import { formatFieldError } from '../../../../lib/meta/field-errors';
import { toStructural } from '../../../../lib/scheme/structural/structural';
import { prune } from '../../../../lib/scheme/structural/prune';
import { applyDefaults, pruneNonNullableNulls } from '../../../../lib/scheme/structural/default';
import { CrSchemaRuntime } from '../../../../lib/scheme/structural/runtime';
import { toServerSchema } from '../../../../lib/scheme/structural/to-server-schema';
import { fieldPathInSchema } from '../../../../lib/scheme/structural/field-path';

const S = (yaml: string) => toStructural(parse(yaml));

const CRONTAB = S(`
type: object
properties:
  spec:
    type: object
    properties:
      cronSpec: {type: string, pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'}
      replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
      image: {type: string}
      mode: {type: string, enum: [a, b], default: a}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer, default: 80}
      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      extra: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: object, properties: {a: {type: string}}}}}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
      note: {type: string, nullable: true}
      labels: {type: object, additionalProperties: {type: string}}
  status:
    type: object
    properties:
      replicas: {type: integer}
`);

describe('pruning (Kubernetes pruning semantics)', () => {
  it('removes unspecified fields and reports their paths, keeping apiVersion/kind/metadata at the root', () => {
    const obj = parse(`
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: x}
foo: 1
spec:
  image: nginx
  bogus: true
  ports: [{name: http, junk: 1}]
  extra: {anything: [1], known: {a: x, b: y}}
  template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}
`);
    const removed = prune(obj, CRONTAB, { isResourceRoot: true, track: true });
    expect(removed).to.deep.equal(['foo', 'spec.bogus', 'spec.extra.known.b', 'spec.ports[0].junk']);
    expect(obj).to.deep.equal(parse(`
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: x}
spec:
  image: nginx
  ports: [{name: http}]
  extra: {anything: [1], known: {a: x}}
  template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}
`));
  });

  it('prunes everything under a node without schema, and nothing is reported without track', () => {
    const obj = { a: { b: 1 }, c: [{ d: 1 }] };
    expect(prune(obj, S('type: object\nproperties:\n c: {type: array, items: {type: object}}'))).to.deep.equal([]);
    expect(obj).to.deep.equal({ c: [{}] });
  });
});

describe('defaulting and nulls', () => {
  it('fills missing properties top-down, including list items, with deep copies', () => {
    const obj: any = { spec: { ports: [{ name: 'http' }, { name: 'x', port: 8080 }] } };
    expect(applyDefaults(obj, CRONTAB)).to.equal(true);
    expect(obj.spec).to.deep.include({ replicas: 1, mode: 'a' });
    expect(obj.spec.ports).to.deep.equal([{ name: 'http', port: 80 }, { name: 'x', port: 8080 }]);
    expect(applyDefaults(obj, CRONTAB)).to.equal(false);
  });

  it('a non-nullable null takes the default; without one it is dropped; nullable nulls stay', () => {
    const obj: any = { spec: { replicas: null, image: null, note: null } };
    pruneNonNullableNulls(obj, CRONTAB);
    applyDefaults(obj, CRONTAB);
    expect(obj.spec).to.deep.equal({ replicas: 1, note: null, mode: 'a' });
  });

  it('map values and list items that are null take their schema default', () => {
    const s = S('type: object\nproperties:\n m: {type: object, additionalProperties: {type: string, default: d}}\n l: {type: array, items: {type: string, default: e}}');
    const obj = { m: { a: null, b: 'x' }, l: [null, 'y'] };
    applyDefaults(obj, s);
    expect(obj).to.deep.equal({ m: { a: 'd', b: 'x' }, l: ['e', 'y'] });
  });
});

describe('CrSchemaRuntime', () => {
  const rt = new CrSchemaRuntime(CRONTAB);
  const base = () => parse('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: x, foo: bar}\nspec: {image: nginx}');

  it('decode prunes, reports unknown fields (metadata too), coerces metadata and defaults', () => {
    const obj = base();
    obj.spec.unknownThing = 1;
    const r = rt.decode(obj, { track: true });
    expect(r.unknown).to.deep.equal(['metadata.foo', 'spec.unknownThing']);
    expect(r.error).to.equal(undefined);
    expect(obj.metadata).to.deep.equal({ name: 'x' });
    expect(obj.spec).to.deep.equal({ image: 'nginx', replicas: 1, mode: 'a' });
    expect(rt.hasDefaults).to.equal(true);
  });

  it('decode edits metadata in place, so a caller holding obj.metadata still writes into the object', () => {
    const obj = base();
    const meta = obj.metadata;
    rt.decode(obj, { track: true });
    expect(obj.metadata).to.equal(meta);
    meta.managedFields = [{ manager: 'm' }];
    expect(obj.metadata.managedFields).to.deep.equal([{ manager: 'm' }]);
  });

  it('decode refuses malformed embedded metadata on requests and drops it from storage', () => {
    const bad = () => ({ ...base(), spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 5 } } } });
    const r = rt.decode(bad());
    expect(r.error && formatFieldError(r.error)).to.equal('spec.template.metadata: Invalid value: {"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string');
    const stored: any = bad();
    expect(rt.decode(stored, { fromStorage: true }).error).to.equal(undefined);
    expect(stored.spec.template.metadata).to.deep.equal({});
  });

  it('validate reports schema, embedded-resource and set/map uniqueness errors', () => {
    const obj: any = base();
    rt.decode(obj);
    obj.spec.replicas = 20;
    obj.spec.cronSpec = 'nope';
    obj.spec.tags = ['a', 'b', 'a'];
    obj.spec.ports = [{ name: 'http', port: 1 }, { name: 'http', port: 2 }];
    obj.spec.template = { kind: 'Pod', metadata: { name: 'Bad_Name/' } };
    expect(rt.validate(obj).map(formatFieldError)).to.have.members([
      'spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10',
      "spec.cronSpec: Invalid value: \"nope\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.template.apiVersion: Required value',
      'spec.template.metadata.name: Invalid value: "Bad_Name/": may not contain \'/\'',
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: {"name":"http"}',
    ]);
  });

  it('validateStatus checks only the status: field paths under status, messages relative to it (Kubernetes validator.go)', () => {
    expect(rt.validateStatus({ spec: { replicas: 'x' }, status: { replicas: 'y' } }).map(formatFieldError)).to.deep.equal([
      'status.replicas: Invalid value: "string": replicas in body must be of type integer: "string"',
    ]);
  });

  it('defaults, embedded resources and set lists deep under map values and list items still act (the walks skip only branches without them)', () => {
    const deep = new CrSchemaRuntime(S(`
type: object
properties:
  spec:
    type: object
    properties:
      plain: {type: object, properties: {x: {type: string}, n: {type: string}}}
      groups:
        type: object
        additionalProperties:
          type: array
          items:
            type: object
            properties:
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              size: {type: integer, default: 3}
              inner: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`));
    const obj: any = {
      apiVersion: 'x/v1', kind: 'X', metadata: { name: 'n' },
      spec: { plain: { x: 'y', n: null }, groups: { g1: [{ tags: ['a', 'a'], inner: { kind: 'Pod', metadata: { name: 'p', bogus: 1 } } }] } },
    };
    const res = deep.decode(obj, { track: true });
    expect(res.unknown).to.deep.equal(['spec.groups.g1[0].inner.metadata.bogus']);
    expect(obj.spec.groups.g1[0].size).to.equal(3);
    expect(obj.spec.groups.g1[0].inner.metadata).to.deep.equal({ name: 'p' });
    expect(obj.spec.plain).to.deep.equal({ x: 'y' });
    expect(deep.validate(obj).map(formatFieldError)).to.have.members([
      'spec.groups.g1[0].tags[1]: Duplicate value: "a"',
      'spec.groups.g1[0].inner.apiVersion: Required value',
    ]);
  });

  it('an object without a default field is unchanged by decode', () => {
    const rt2 = new CrSchemaRuntime(S('type: object\nproperties:\n spec: {type: object, properties: {a: {type: string}}}'));
    const obj = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'n' }, spec: { a: 'b' } };
    expect(rt2.decode(obj).changed).to.equal(false);
    expect(rt2.hasDefaults).to.equal(false);
  });
});

describe('toServerSchema and fieldPathInSchema', () => {
  it('converts list/map types (atomic when unset), adds apiVersion/kind/metadata at the root', () => {
    const s = toServerSchema(CRONTAB, { embeddedMeta: true });
    expect(s.properties!.apiVersion.type).to.equal('string');
    expect(s.properties!.metadata.properties!.name).to.deep.include({ type: 'string' });
    const spec = s.properties!.spec.properties!;
    expect(spec.ports['x-kubernetes-list-type']).to.equal('map');
    expect(spec.ports['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
    expect(spec.tags['x-kubernetes-list-type']).to.equal('set');
    expect(toServerSchema(S('type: object\nproperties:\n l: {type: array, items: {type: string}}')).properties!.l['x-kubernetes-list-type']).to.equal('atomic');
    expect(spec.note.nullable).to.equal(true);
    expect(spec.template['x-kubernetes-embedded-resource']).to.equal(true);
    expect(spec.template.properties!.kind.type).to.equal('string');
    expect(spec.extra['x-kubernetes-preserve-unknown-fields']).to.equal(true);
  });

  it('resolves simple JSON paths as Kubernetes does', () => {
    expect(fieldPathInSchema('.spec.replicas', CRONTAB)).to.deep.include({ path: 'spec.replicas' });
    expect(fieldPathInSchema('.spec.replicas', CRONTAB).schema!.type).to.equal('integer');
    expect(fieldPathInSchema(".spec['image']", CRONTAB).path).to.equal('spec.image');
    expect(fieldPathInSchema('.spec.labels.team', CRONTAB)).to.deep.include({ path: 'spec.labels[team]' });
    expect(fieldPathInSchema('.spec.nope', CRONTAB).error).to.equal('does not refer to a valid field');
    expect(fieldPathInSchema('spec', CRONTAB).error).to.equal('expected [ or . but got: spec');
    expect(fieldPathInSchema('.spec.', CRONTAB).error).to.equal('unexpected end of JSON path');
    expect(fieldPathInSchema('.spec[image]', CRONTAB).error).to.equal('expected single quoted string but got image');
  });
});
