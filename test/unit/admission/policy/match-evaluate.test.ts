/**
 * The ValidatingAdmissionPolicy plugin's matching and evaluation without a server: excludeResourceRules
 * winning over resourceRules, resourceNames, objectSelector on the object or the old object,
 * matchPolicy Equivalent reaching another served version, a namespace selector on a missing
 * namespace (NotFound), and evaluation details users see in messages: "failed expression: ..."
 * without a message, messageExpression falling back to the message when it fails, a variable's
 * error surfacing in the validation that reads it and not otherwise (lazy variables), a compile error under failurePolicy Ignore
 * admitting.
 */
import { expect } from 'chai';
import { AdmissionAttributes } from '../../../../lib/registry/admission-attributes';
import { ApiError } from '../../../../lib/meta/api-errors';
import { ApiObject, ResourceDef } from '../../../../lib/scheme/types';
import { compilePolicy, parseMatch } from '../../../../lib/admission/policy/compiled-policy';
import { matchesRequest, namespaceObjectGetter } from '../../../../lib/admission/policy/match';
import { evaluatePolicy, Evaluator } from '../../../../lib/admission/policy/evaluate';
import { EquivalentResources, ruleTargetOf } from '../../../../lib/admission/webhook/webhook-matcher';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] } as unknown as ResourceDef;
const widgetsV2 = { group: 'example.com', version: 'v2', resource: 'widgets', kind: 'Widget', namespaced: true, subresources: [] } as unknown as ResourceDef;
const RULE = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: '*' };

const attrs = (opts: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE', resource: configMaps, namespace: 'team', name: 'cm', object: { metadata: { name: 'cm', labels: { tier: 'web' } } },
  dryRun: false, ctx: { namespace: 'team' }, ...opts,
});
const noEquivalents: EquivalentResources = { equivalents: () => [] };
const namespaces = (ns?: ApiObject) => ({ get: async () => ns });

async function matches(match: Record<string, unknown>, a = attrs(), equivalents = noEquivalents, ns: ApiObject | null = { metadata: { name: 'team' } }): Promise<boolean> {
  const t = ruleTargetOf(a);
  return matchesRequest(parseMatch({ namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', ...match }), a, t, equivalents, namespaceObjectGetter(a, t, namespaces(ns ?? undefined)));
}

const sync: Evaluator = (p, activation, budget) => p.evaluate(activation, budget);
const policy = (spec: Record<string, unknown>) => compilePolicy({ metadata: { name: 'p', resourceVersion: '1' }, spec: { failurePolicy: 'Fail', ...spec } });
const base = { object: { metadata: { name: 'cm' }, data: { a: '1' } }, oldObject: null, request: {}, namespaceObject: null, authorizer: null };

describe('ValidatingAdmissionPolicy matching', () => {
  it('matches its rules, and excludeResourceRules wins', async () => {
    expect(await matches({ resourceRules: [RULE] })).to.equal(true);
    expect(await matches({ resourceRules: [RULE], excludeResourceRules: [RULE] })).to.equal(false);
    expect(await matches({ resourceRules: [{ ...RULE, operations: ['UPDATE'] }] })).to.equal(false);
  });

  it('resourceNames narrow a rule to those names', async () => {
    expect(await matches({ resourceRules: [{ ...RULE, resourceNames: ['other'] }] })).to.equal(false);
    expect(await matches({ resourceRules: [{ ...RULE, resourceNames: ['cm'] }] })).to.equal(true);
  });

  it('objectSelector holds on the object or the old object', async () => {
    const sel = { objectSelector: { matchLabels: { tier: 'db' } }, resourceRules: [RULE] };
    expect(await matches(sel)).to.equal(false);
    expect(await matches(sel, attrs({ operation: 'CREATE', oldObject: { metadata: { labels: { tier: 'db' } } } }))).to.equal(true);
  });

  it('matchPolicy Equivalent reaches another served version of the resource; Exact does not', async () => {
    const rule = { apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'], scope: '*' };
    const eq: EquivalentResources = { equivalents: () => [{ version: 'v1', kind: 'Widget' }, { version: 'v2', kind: 'Widget' }] };
    const a = attrs({ resource: widgetsV2 });
    expect(await matches({ resourceRules: [rule] }, a, eq)).to.equal(true);
    expect(await matches({ resourceRules: [rule], matchPolicy: 'Exact' }, a, eq)).to.equal(false);
  });

  it('a namespaceSelector on a namespace that does not exist answers NotFound', async () => {
    let err: unknown;
    try {
      await matches({ resourceRules: [RULE], namespaceSelector: { matchLabels: { env: 'prod' } } }, attrs(), noEquivalents, null);
    } catch (e) { err = e; }
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).code).to.equal(404);
  });
});

describe('ValidatingAdmissionPolicy evaluation', () => {
  it('a failed validation without message says "failed expression: <expression>"', async () => {
    const r = await evaluatePolicy(policy({ validations: [{ expression: 'size(object.data) == 0' }] }), base, sync);
    expect(r.denials.map((d) => [d.message, d.reason, d.expressionIndex])).to.deep.equal([['failed expression: size(object.data) == 0', 'Invalid', 0]]);
  });

  it('a messageExpression that fails leaves the static message', async () => {
    const r = await evaluatePolicy(policy({ validations: [{ expression: 'false', message: 'static', messageExpression: 'object.nope.deeper' }] }), base, sync);
    expect(r.denials[0].message).to.equal('static');
  });

  it('a variable that fails makes the validation reading it fail with the variable\'s error', async () => {
    const r = await evaluatePolicy(policy({
      variables: [{ name: 'bad', expression: 'object.nope.deeper' }],
      validations: [{ expression: 'variables.bad == 1' }, { expression: 'true' }],
    }), base, sync);
    expect(r.denials).to.have.length(1);
    expect(r.denials[0].message).to.match(/^expression 'variables\.bad == 1' resulted in error: composited variable "bad" fails to evaluate: /);
  });

  it('a variable no expression reads is never evaluated, so its error denies nothing', async () => {
    const r = await evaluatePolicy(policy({
      variables: [{ name: 'unused', expression: 'object.nope.deeper' }, { name: 'keys', expression: 'size(object.data)' }],
      validations: [{ expression: 'variables.keys == 1' }],
    }), base, sync);
    expect(r.denials).to.deep.equal([]);
  });

  it('a compile error denies under Fail and admits under Ignore; matchConditions false skip the policy', async () => {
    const broken = { validations: [{ expression: 'object.x ==' }] };
    expect((await evaluatePolicy(policy(broken), base, sync)).denials[0]).to.include({ error: true, compileError: true });
    expect((await evaluatePolicy(policy({ ...broken, failurePolicy: 'Ignore' }), base, sync)).denials).to.deep.equal([]);
    const skipped = await evaluatePolicy(policy({ matchConditions: [{ name: 'never', expression: 'false' }], validations: [{ expression: 'false' }] }), base, sync);
    expect(skipped).to.deep.include({ applies: false, denials: [] });
  });
});
