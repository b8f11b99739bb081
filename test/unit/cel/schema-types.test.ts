/**
 * Typing self from an OpenAPI schema, as Kubernetes 1.32 types it: which rules compile against which
 * schema (an unknown field is refused where the CRD is written), and what values rules see (integers
 * as ints, numbers as doubles, formats as bytes/duration/timestamp, escaped names, set lists equal in
 * any order, embedded resources with apiVersion/kind/metadata.name).
 */

import { expect } from 'chai';
import { celEnvironment, compile, declarationForSchema, celValueForSchema, type CelSchema } from '../../../lib/cel';

function envFor(schema: CelSchema, resourceRoot = false) {
  const d = declarationForSchema(schema, 'self', { resourceRoot });
  return celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: d.type }, { name: 'oldSelf', type: d.type }], types: d.types });
}

function evalRule(schema: CelSchema, rule: string, self: unknown, oldSelf: unknown = self, resourceRoot = false): unknown {
  const c = compile(envFor(schema, resourceRoot), rule);
  if (!c.ok) throw new Error(c.error);
  const r = c.program.evaluate({ self: celValueForSchema(self, schema, { resourceRoot }), oldSelf: celValueForSchema(oldSelf, schema, { resourceRoot }) });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const spec: CelSchema = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    'x-y': { type: 'string' },
    namespace: { type: 'string' },
    'a.b': { type: 'string' },
    '1bad': { type: 'string' },
    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
    order: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    ttl: { type: 'string', format: 'duration' },
    data: { type: 'string', format: 'byte' },
    port: { 'x-kubernetes-int-or-string': true },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    partial: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'integer' } } },
    maybe: { type: 'integer', nullable: true },
    sub: { type: 'object', properties: { a: { type: 'integer' } } },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  },
};

describe('cel: typing from OpenAPI schemas', () => {
  describe('what compiles', () => {
    const compiles: string[] = [
      'self.replicas + 1 > 0',
      'self.ratio * 2.0 > 1.0',
      'self.name.startsWith("a")',
      'self.enabled || false',
      'self.x__dash__y == "a"',
      'self.__namespace__ == "ns"',
      'self.a__dot__b == "a"',
      'self.tags.all(t, t.size() > 0)',
      'self.ports.exists(p, p.port == 80 && p.name == "http")',
      'self.labels.all(k, self.labels[k].size() < 64)',
      'self.when < timestamp("2030-01-01T00:00:00Z")',
      'self.day.getFullYear() > 2000',
      'self.ttl > duration("1s")',
      'self.data.size() > 0',
      'type(self.port) == int ? self.port > 0 : self.port.endsWith("%")',
      'self.extra.anything == 1',
      'self.partial.known > 1',
      'self.maybe == null || self.maybe > 1',
      'has(self.sub.a)',
      'self.?sub.?a.orValue(0) >= 0',
      'self.labels.?app.orValue("") != "x"',
      'self.template.apiVersion == "v1" && self.template.kind == "Pod" && self.template.metadata.name != ""',
      'self == oldSelf',
      'self.sub == oldSelf.sub',
    ];
    for (const rule of compiles) {
      it(`compiles ${rule}`, () => {
        const c = compile(envFor(spec), rule, { resultTypes: ['bool'] });
        expect(c.ok ? 'ok' : c.error).to.equal('ok');
      });
    }

    const refused: Array<[string, string]> = [
      ['self.unknown == 1', "undefined field 'unknown'"],
      ['self.sub.b == 1', "undefined field 'b'"],
      ['self.partial.other == 1', "undefined field 'other'"],
      ['self.replicas == "3"', "found no matching overload for '_==_' applied to '(int, string)'"],
      ['self.ratio + 1 > 0.0', "found no matching overload for '_+_' applied to '(double, int)'"],
      ['self.name > 1', "found no matching overload for '_>_' applied to '(string, int)'"],
      ['self.x-y == "a"', "undefined field 'x'"],
      ['has(self.sub.b)', "undefined field 'b'"],
      ['has(self.nope)', "undefined field 'nope'"],
      ['self.?nope.hasValue()', "undefined field 'nope'"],
      ['self.?sub.?b.hasValue()', "undefined field 'b'"],
    ];
    for (const [rule, message] of refused) {
      it(`refuses ${rule}: ${message}`, () => {
        const c = compile(envFor(spec), rule, { resultTypes: ['bool'] });
        expect(c.ok).to.equal(false);
        if (!c.ok) expect(c.error.split('\n')[0]).to.match(new RegExp(`^compilation failed: ERROR: <input>:1:\\d+: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      });
    }

    it('leaves a property whose name cannot be escaped out of the type', () => {
      const d = declarationForSchema(spec, 'self');
      const root = d.types.find((t) => t.name === 'self');
      expect(root?.fields).to.not.have.property('1bad');
      expect(root?.fields).to.include({ x__dash__y: 'string', __namespace__: 'string', a__dot__b: 'string', tags: 'list<string>', labels: 'map<string, string>', port: 'dyn', maybe: 'dyn' });
    });

    it('types apiVersion, kind and metadata.name at a resource root', () => {
      const c = compile(envFor({ type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'integer' } } } } }, true), 'self.metadata.name.startsWith("a") && self.kind == "Foo" && self.spec.x > 0');
      expect(c.ok ? 'ok' : c.error).to.equal('ok');
    });
  });

  describe('values', () => {
    const obj = {
      replicas: 3, ratio: 2, name: 'abc', enabled: true, 'x-y': 'q', namespace: 'ns', 'a.b': 'ab',
      tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], order: ['a', 'b'],
      labels: { app: 'web' }, when: '2024-05-01T10:00:00Z', day: '2024-05-01', ttl: '1h30m', data: 'aGVsbG8=',
      port: '50%', extra: { anything: 1 }, partial: { known: 2, other: 'x' }, maybe: null, sub: { a: 1 },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
    };
    const table: Array<[string, unknown]> = [
      ['self.replicas', 3n],
      ['self.ratio', 2],
      ['type(self.ratio) == double', true],
      ['type(self.replicas) == int', true],
      ['self.x__dash__y + self.__namespace__ + self.a__dot__b', 'qnsab'],
      ['self.labels.app', 'web'],
      ['self.when == timestamp("2024-05-01T10:00:00Z")', true],
      ['self.day.getDayOfMonth()', 0n],
      ['self.ttl == duration("90m")', true],
      ['self.data == b"hello"', true],
      ['type(self.port) == string && self.port.endsWith("%")', true],
      ['self.extra.anything', 1n],
      ['self.partial.known', 2n],
      ['self.maybe == null', true],
      ['self.template.metadata.name', 'p'],
      ['self.ports.map(p, p.port)', [80n, 443n]],
      ['has(self.sub.a) && !has(oldSelf.sub.a)', true],
    ];
    for (const [rule, value] of table) {
      it(`${rule} is ${String(value)}`, () => {
        expect(evalRule(spec, rule, obj, { ...obj, sub: {} })).to.deep.equal(value);
      });
    }

    it('compares set lists and map lists regardless of order, atomic lists in order', () => {
      const reordered = { ...obj, tags: ['b', 'a'], ports: [obj.ports[1], obj.ports[0]] };
      expect(evalRule(spec, 'self == oldSelf', obj, reordered)).to.equal(true);
      expect(evalRule(spec, 'self == oldSelf', obj, { ...obj, order: ['b', 'a'] })).to.equal(false);
      expect(evalRule(spec, 'self == oldSelf', obj, { ...obj, ports: [{ name: 'http', port: 81 }, obj.ports[1]] })).to.equal(false);
    });

    it('compares set and map lists regardless of order also on their own, atomic lists in order', () => {
      const reordered = { ...obj, tags: ['b', 'a'], ports: [obj.ports[1], obj.ports[0]], order: ['b', 'a'] };
      expect(evalRule(spec, 'self.tags == oldSelf.tags && self.ports == oldSelf.ports', obj, reordered)).to.equal(true);
      expect(evalRule(spec, 'self.tags == ["b", "a"] && self.tags != ["a"]', obj)).to.equal(true);
      expect(evalRule(spec, 'self.order == oldSelf.order', obj, reordered)).to.equal(false);
    });

    it('adds set lists as a union and map lists as a merge by key, atomic lists as concatenation', () => {
      expect(evalRule(spec, 'self.tags + ["c", "a"]', obj)).to.deep.equal(['a', 'b', 'c']);
      expect(evalRule(spec, 'self.order + ["c", "a"]', obj)).to.deep.equal(['a', 'b', 'c', 'a']);
      const merged = evalRule(spec, '(self.ports + oldSelf.ports).map(p, p.name + ":" + string(p.port))', obj, { ...obj, ports: [{ name: 'https', port: 8443 }, { name: 'metrics', port: 9090 }] });
      expect(merged).to.deep.equal(['http:80', 'https:8443', 'metrics:9090']);
    });

    it('tells objects apart field by field (transition rules: self == oldSelf)', () => {
      expect(evalRule(spec, 'self.sub == oldSelf.sub', { sub: { a: 1 } }, { sub: { a: 1 } })).to.equal(true);
      expect(evalRule(spec, 'self.sub == oldSelf.sub', { sub: { a: 1 } }, { sub: { a: 2 } })).to.equal(false);
      expect(evalRule(spec, 'self.sub != oldSelf.sub', { sub: { a: 1 } }, { sub: {} })).to.equal(true);
    });

    it('converts plain JSON bound to a schema-typed variable by its schema', () => {
      const c = compile(envFor(spec), 'self.replicas == 3 && type(self.ratio) == double && self.sub.a == 1');
      if (!c.ok) throw new Error(c.error);
      expect(c.program.evaluate({ self: { replicas: 3, ratio: 2, sub: { a: 1 } } })).to.deep.include({ ok: true, value: true });
    });

    it('answers an absent field with cel-go\'s runtime error', () => {
      const c = compile(envFor(spec), 'self.sub.a == 1');
      if (!c.ok) throw new Error(c.error);
      expect(c.program.evaluate({ self: celValueForSchema({ sub: {} }, spec) })).to.deep.equal({ ok: false, error: 'no such key: a', reason: 'runtime' });
    });

    it('converts a large object lazily: reading one field does not convert the others', () => {
      const big = { sub: { a: 1 }, order: Array.from({ length: 100_000 }, (_, i) => `item-${i}`) };
      const v = celValueForSchema(big, spec) as Map<string, unknown>;
      expect(v.get('sub')).to.be.instanceOf(Map);
      expect(Map.prototype.has.call(v, 'order')).to.equal(false);
    });
  });
});
