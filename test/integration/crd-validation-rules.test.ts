/**
 * CRD validation rules (`x-kubernetes-validations`, issue 42 part 2) through HTTP against the
 * real server and etcd: rules on the root, a nested object, list items, map values and a
 * list-type=map with a transition rule, with message, messageExpression, reason, fieldPath and
 * optionalOldSelf; the causes kube-apiserver 1.32 gives; refusals at CRD create (field checks,
 * compile errors, transition rules where old and new values cannot be correlated); a rule added by
 * a CRD update; ratcheting of unchanged invalid values (rules and schema); dry run and /status.
 */
import { expect } from 'chai';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { warningTexts } from '../helpers/warning-headers';
import { CRDS, causes } from '../helpers/crd-http';

type Obj = Record<string, any>;
const NS = 'crd-rules';

/** A Widget CRD of `group` with `schema` as its v1 schema and the status subresource. */
function widgetCrd(group: string, schema: Obj): Obj {
  return {
    apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} } }],
    },
  };
}

const rulesSchema = (): Obj => ({
  type: 'object',
  'x-kubernetes-validations': [{ rule: "self.metadata.name != 'forbidden'", message: 'this name is reserved' }],
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas', fieldPath: '.minReplicas' },
        { rule: 'self.mode == oldSelf.mode', message: 'Value is immutable' },
        { rule: '!oldSelf.hasValue() || self.maxReplicas >= oldSelf.value().maxReplicas', optionalOldSelf: true,
          messageExpression: "'maxReplicas ' + string(self.maxReplicas) + ' is below the old value'" },
        { rule: "!has(self.owner) || self.owner != ''", reason: 'FieldValueRequired', message: 'owner must be set when present' },
      ],
      properties: {
        minReplicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, mode: { type: 'string', maxLength: 20 }, owner: { type: 'string', maxLength: 20 },
        ports: {
          type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object', required: ['name'],
            properties: { name: { type: 'string', maxLength: 20 }, port: { type: 'integer' } },
            'x-kubernetes-validations': [
              { rule: 'self.port >= oldSelf.port', message: 'port may not decrease', reason: 'FieldValueForbidden' },
              { rule: 'self.port < 65536', messageExpression: "'port ' + string(self.port) + ' is out of range'" },
            ],
          },
        },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: "self.startsWith('t-')" }] } },
        labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: 'self.size() <= 5', reason: 'FieldValueDuplicate' }] } },
        limit: { type: 'integer', maximum: 10 },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.ready >= 0', message: 'ready must not be negative' }] },
  },
});

const widget = (group: string, name: string, spec: Obj, extra: Obj = {}): Obj =>
  ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, ...extra.metadata }, spec, ...(extra.status ? { status: extra.status } : {}) });
const good = { minReplicas: 1, maxReplicas: 3, mode: 'fast' };

describe('CRD validation rules (x-kubernetes-validations) over HTTP', function () {
  this.timeout(60_000);
  let t: TestServer;
  const base = (g: string) => `/apis/${g}/v1/namespaces/${NS}/widgets`;
  const install = async (group: string, schema: Obj) => {
    const res = await t.post(CRDS, widgetCrd(group, schema));
    expect(res.status, res.text).to.equal(201);
    await eventually(async () => (await t.get(base(group))).status === 200, 10_000, 50);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('evaluation on writes', () => {
    const G = 'rules.example.com';
    before(() => install(G, rulesSchema()));

    it('accepts an object every rule holds for', async () => {
      const res = await t.post(base(G), widget(G, 'ok', { ...good, ports: [{ name: 'http', port: 80 }], tags: ['t-a'], labels: { a: 'b' } }));
      expect(res.status, res.text).to.equal(201);
    });

    it('refuses with the causes kube-apiserver gives for each node, reason and fieldPath, and stores nothing', async () => {
      const res = await t.post(base(G), widget(G, 'forbidden', {
        minReplicas: 5, maxReplicas: 3, mode: 'x', owner: '', ports: [{ name: 'http', port: 70000 }], tags: ['t-a', 'b'], labels: { k: 'toolong' },
      }));
      expect(res.status, res.text).to.equal(422);
      expect(res.body).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(causes(res)).to.have.members([
        '<nil>|FieldValueInvalid|Invalid value: "object": this name is reserved',
        'spec.minReplicas|FieldValueInvalid|Invalid value: "object": minReplicas must not exceed maxReplicas',
        'spec|FieldValueRequired|Required value: owner must be set when present',
        'spec.ports[0]|FieldValueInvalid|Invalid value: "object": port 70000 is out of range',
        'spec.tags[1]|FieldValueInvalid|Invalid value: "string": failed rule: self.startsWith(\'t-\')',
        'spec.labels[k]|FieldValueDuplicate|Duplicate value: "string"',
      ]);
      expect(res.body.message).to.match(/^Widget\.rules\.example\.com "forbidden" is invalid: \[/);
      expect((await t.get(`${base(G)}/forbidden`)).status).to.equal(404);
    });

    it('runs transition rules on update only, correlating list-map items by key; optionalOldSelf also on create', async () => {
      const created = (await t.post(base(G), widget(G, 'tr', { ...good, ports: [{ name: 'a', port: 100 }, { name: 'b', port: 200 }] }))).body;
      expect(created.metadata?.uid, JSON.stringify(created)).to.be.a('string');
      // Reordered items correlate by name: b keeps 200, a goes down.
      const put = await t.put(`${base(G)}/tr`, { ...created, spec: { ...good, mode: 'slow', maxReplicas: 2, minReplicas: 1, ports: [{ name: 'b', port: 200 }, { name: 'a', port: 99 }] } });
      expect(put.status, put.text).to.equal(422);
      expect(causes(put)).to.have.members([
        'spec|FieldValueInvalid|Invalid value: "object": Value is immutable',
        'spec|FieldValueInvalid|Invalid value: "object": maxReplicas 2 is below the old value',
        'spec.ports[1]|FieldValueForbidden|Forbidden: port may not decrease',
      ]);
      // A new item has no old value: its transition rule does not run.
      const added = await t.put(`${base(G)}/tr`, { ...created, spec: { ...good, ports: [{ name: 'a', port: 100 }, { name: 'b', port: 200 }, { name: 'c', port: 1 }] } });
      expect(added.status, added.text).to.equal(200);
      expect((await t.get(`${base(G)}/tr`)).body.spec.ports).to.have.length(3);
    });

    it('checks the rules of a dry run without storing, and of /status writes over the whole object', async () => {
      const dry = await t.post(`${base(G)}?dryRun=All`, widget(G, 'dry', { ...good, minReplicas: 9 }));
      expect(dry.status, dry.text).to.equal(422);
      expect(causes(dry)).to.deep.equal(['spec.minReplicas|FieldValueInvalid|Invalid value: "object": minReplicas must not exceed maxReplicas']);
      const dryOk = await t.post(`${base(G)}?dryRun=All`, widget(G, 'dry', good));
      expect(dryOk.status, dryOk.text).to.equal(201);
      expect((await t.get(`${base(G)}/dry`)).status).to.equal(404);

      const obj = (await t.post(base(G), widget(G, 'st', good))).body;
      const bad = await t.put(`${base(G)}/st/status`, { ...obj, status: { ready: -1 } });
      expect(bad.status, bad.text).to.equal(422);
      expect(causes(bad)).to.deep.equal(['status|FieldValueInvalid|Invalid value: "object": ready must not be negative']);
      const ok = await t.put(`${base(G)}/st/status`, { ...obj, status: { ready: 2 } });
      expect(ok.status, ok.text).to.equal(200);
      expect((await t.get(`${base(G)}/st`)).body.status).to.deep.equal({ ready: 2 });
    });

    it('does not evaluate rules over a value of the wrong type, saying so', async () => {
      const res = await t.post(base(G), widget(G, 'typed', { ...good, minReplicas: 'one' }));
      expect(res.status, res.text).to.equal(422);
      expect(causes(res)).to.deep.equal([
        'spec.minReplicas|FieldValueTypeInvalid|Invalid value: "string": spec.minReplicas in body must be of type integer: "string"',
        '<nil>|FieldValueInvalid|Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ]);
    });
  });

  describe('checks at CRD create and update', () => {
    // One version: Kubernetes' internal form lifts its schema to spec.validation, where errors are reported.
    const P = 'spec.validation.openAPIV3Schema';
    const refused = async (group: string, schema: Obj): Promise<string[]> => {
      const res = await t.post(CRDS, widgetCrd(group, schema));
      expect(res.status, res.text).to.equal(422);
      expect((await t.get(`${CRDS}/widgets.${group}`)).status).to.equal(404);
      return causes(res);
    };
    const spec = (rules: Obj[], extra: Obj = {}): Obj => ({ type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer' }, ...extra }, 'x-kubernetes-validations': rules } } });

    it('refuses malformed rule fields with Kubernetes\' paths and messages', async () => {
      expect(await refused('f1.example.com', spec([{ rule: ' ' }, { rule: 'true', message: 'two\nlines' }, { rule: 'true', reason: 'FieldValueNope' },
        { rule: 'true', fieldPath: '.b' }, { rule: 'true', messageExpression: ' ' }]))).to.have.members([
        `${P}.properties[spec].x-kubernetes-validations[0].rule|FieldValueRequired|Required value: rule is not specified`,
        `${P}.properties[spec].x-kubernetes-validations[1].message|FieldValueInvalid|Invalid value: "two\\nlines": message must not contain line breaks`,
        `${P}.properties[spec].x-kubernetes-validations[2].reason|FieldValueNotSupported|Unsupported value: "FieldValueNope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
        `${P}.properties[spec].x-kubernetes-validations[3].fieldPath|FieldValueInvalid|Invalid value: ".b": fieldPath must be a valid path`,
        `${P}.properties[spec].x-kubernetes-validations[4].messageExpression|FieldValueRequired|Required value: messageExpression must be non-empty if specified`,
      ]);
    });

    it('refuses rules that do not compile, results of the wrong type, misplaced oldSelf and optionalOldSelf', async () => {
      const got = await refused('f2.example.com', spec([{ rule: 'self.a >' }, { rule: 'self.a + 1' }, { rule: 'true', messageExpression: '42' }, { rule: 'self.a > 0', optionalOldSelf: true }],
        { l: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } }));
      const rule = (r: string, m = '') => `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:${JSON.stringify(m)}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
      expect(got.find((c) => c.startsWith(`${P}.properties[spec].x-kubernetes-validations[0].rule|FieldValueInvalid|Invalid value: ${rule('self.a >')}: compilation failed: ERROR: `))).to.be.a('string');
      expect(got).to.include.members([
        `${P}.properties[spec].x-kubernetes-validations[2].messageExpression|FieldValueInvalid|Invalid value: ${rule('true', '42')}: messageExpression must evaluate to a string`,
        `${P}.properties[spec].x-kubernetes-validations[3].optionalOldSelf|FieldValueInvalid|Invalid value: true: may not be set if oldSelf is not used in rule`,
        `${P}.properties[spec].properties[l].items.x-kubernetes-validations[0].rule|FieldValueInvalid|Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[spec].properties[l]`,
      ]);
      // `self.a + 1` is an int: refused, as self is typed from the schema.
      const second = got.filter((c) => c.includes('x-kubernetes-validations[1]'));
      expect(second).to.not.be.empty;
      expect(second.every((c) => c.endsWith('cel expression must evaluate to a bool'))).to.equal(true);
    });

    it('refuses a rule whose estimated cost exceeds the budget', async () => {
      const res = await t.post(CRDS, widgetCrd('cost.example.com', { type: 'object', properties: { spec: { type: 'object', properties: {
        list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x.contains(y)))' }] },
      } } } }));
      expect(res.status, res.text).to.equal(422);
      expect(causes(res)).to.include(`${P}.properties[spec].properties[list].x-kubernetes-validations[0].rule|FieldValueForbidden|Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`);
    });

    it('applies a rule added by a CRD update to new writes, and ratchets values stored before it', async () => {
      const G = 'added.example.com';
      const schema: Obj = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, note: { type: 'string' }, limit: { type: 'integer' } } } } };
      const crd = await install(G, schema);
      const old = (await t.post(base(G), widget(G, 'old', { size: 50, note: 'a', limit: 7 }))).body;
      expect(old.metadata?.resourceVersion).to.be.a('string');
      const props = schema.properties.spec.properties;
      props.size['x-kubernetes-validations'] = [{ rule: 'self <= 10', message: 'size must be at most 10' }];
      props.limit.maximum = 5;
      props.note['x-kubernetes-validations'] = [{ rule: "self != 'bad'" }];
      const current = (await t.get(`${CRDS}/widgets.${G}`)).body;
      current.spec.versions[0].schema.openAPIV3Schema = schema;
      const upd = await t.put(`${CRDS}/widgets.${G}`, current);
      expect(upd.status, upd.text).to.equal(200);
      expect(crd.metadata.uid).to.equal(upd.body.metadata.uid);

      await eventually(async () => (await t.post(`${base(G)}?dryRun=All`, widget(G, 'new', { size: 11 }))).status === 422, 10_000, 50);
      const fresh = await t.post(base(G), widget(G, 'new', { size: 11, limit: 6 }));
      expect(causes(fresh)).to.have.members([
        'spec.size|FieldValueInvalid|Invalid value: "integer": size must be at most 10',
        'spec.limit|FieldValueInvalid|Invalid value: 6: spec.limit in body should be less than or equal to 5',
      ]);

      // The stored object breaks the new rule and the new maximum, but an update of another field
      // leaves both values as they were: ratcheted (the rule's failure comes back as a warning).
      const stored = (await t.get(`${base(G)}/old`)).body;
      const other = await t.put(`${base(G)}/old`, { ...stored, spec: { ...stored.spec, note: 'b' } });
      expect(other.status, other.text).to.equal(200);
      expect(warningTexts(other.headers)).to.include('spec.size: Invalid value: "integer": size must be at most 10');

      // A changed field is validated: the rule and the maximum refuse new bad values; nothing is stored.
      const now = other.body;
      const note = await t.put(`${base(G)}/old`, { ...now, spec: { ...now.spec, note: 'bad' } });
      expect(causes(note)).to.deep.equal(['spec.note|FieldValueInvalid|Invalid value: "string": failed rule: self != \'bad\'']);
      const limit = await t.put(`${base(G)}/old`, { ...now, spec: { ...now.spec, limit: 8 } });
      expect(limit.status, limit.text).to.equal(422);
      expect(causes(limit)).to.deep.equal(['spec.limit|FieldValueInvalid|Invalid value: 8: spec.limit in body should be less than or equal to 5']);
      const worse = await t.put(`${base(G)}/old`, { ...now, spec: { ...now.spec, size: 60 } });
      expect(worse.status, worse.text).to.equal(422);
      expect(causes(worse)).to.deep.equal(['spec.size|FieldValueInvalid|Invalid value: "integer": size must be at most 10']);
      expect((await t.get(`${base(G)}/old`)).body.spec).to.deep.equal({ size: 50, note: 'b', limit: 7 });
    });
  });
});
