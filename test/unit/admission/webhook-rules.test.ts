/**
 * The spec's webhook rules table as data (lib/admission/webhook/rules.ts), the index's first
 * cut (every bucket a request can hit, none it cannot), matchPolicy Equivalent across versions,
 * and the kubeConfigFile user matching order.
 */
import { expect } from 'chai';
import { RuleTarget, ruleMatches, resourceMatches, scopeMatches } from '../../../lib/admission/webhook/rules';
import { WebhookIndex } from '../../../lib/admission/webhook/webhook-index';
import { compileConfiguration } from '../../../lib/admission/webhook/compiled-webhook';
import { equivalentResourcesOf, matchRules } from '../../../lib/admission/webhook/webhook-matcher';
import { CredentialResolver } from '../../../lib/admission/webhook/webhook-credentials';
import { AdmissionAttributes } from '../../../lib/registry/admission-attributes';
import { ResourceDef } from '../../../lib/scheme/types';

const target = (over: Partial<RuleTarget> = {}): RuleTarget => ({
  operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', namespace: 'default', ...over,
});

describe('webhook rules', () => {
  it('resources: *, */*, pods/*, */status, pods/status, pods', () => {
    const rows: Array<[string, string, string, boolean]> = [
      ['*', 'pods', '', true], ['*', 'pods', 'status', false],
      ['*/*', 'pods', '', true], ['*/*', 'pods', 'status', true],
      ['pods/*', 'pods', '', true], ['pods/*', 'pods', 'log', true], ['pods/*', 'secrets', '', false],
      ['*/status', 'pods', 'status', true], ['*/status', 'pods', '', false], ['*/status', 'pods', 'log', false],
      ['pods/status', 'pods', 'status', true], ['pods/status', 'pods', 'exec', false],
      ['pods', 'pods', '', true], ['pods', 'pods', 'status', false],
    ];
    for (const [entry, res, sub, want] of rows) expect(resourceMatches([entry], res, sub), `${entry} vs ${res}/${sub}`).to.equal(want);
  });

  it('scope: Namespaced, Cluster (Namespaces are Cluster), *', () => {
    const ns = target({ resource: 'namespaces', namespace: 'x' });
    const cluster = target({ group: 'rbac', resource: 'clusterroles', namespace: '' });
    expect([scopeMatches('Namespaced', target()), scopeMatches('Namespaced', ns), scopeMatches('Namespaced', cluster)]).to.deep.equal([true, false, false]);
    expect([scopeMatches('Cluster', target()), scopeMatches('Cluster', ns), scopeMatches('Cluster', cluster)]).to.deep.equal([false, true, true]);
    expect([scopeMatches('*', target()), scopeMatches('*', ns), scopeMatches('*', cluster)]).to.deep.equal([true, true, true]);
    expect(scopeMatches('Elsewhere', target())).to.equal(false);
  });

  it('operations, groups and versions: exact or *', () => {
    const rule = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' };
    expect(ruleMatches(rule, target())).to.equal(true);
    expect(ruleMatches(rule, target({ operation: 'DELETE' }))).to.equal(false);
    expect(ruleMatches(rule, target({ group: 'apps' }))).to.equal(false);
    expect(ruleMatches(rule, target({ version: 'v2' }))).to.equal(false);
    expect(ruleMatches({ ...rule, operations: ['*'], apiGroups: ['*'], apiVersions: ['*'] }, target({ operation: 'DELETE', group: 'apps', version: 'v9' }))).to.equal(true);
  });
});

describe('webhook index', () => {
  const config = (name: string, rules: object[]) => ({ metadata: { name }, webhooks: [{ name: `${name}.io`, rules, sideEffects: 'None', admissionReviewVersions: ['v1'] }] });

  it('finds candidates through exact and * buckets, in configuration-name order, each once', () => {
    const index = new WebhookIndex(false);
    index.upsert(config('b', [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }]));
    index.upsert(config('a', [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status', 'pods'] }]));
    index.upsert(config('c', [{ operations: ['DELETE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }]));
    expect(index.candidates('CREATE', '', 'pods')!.map((h) => h.name)).to.deep.equal(['a.io', 'b.io']);
    expect(index.candidates('UPDATE', '', 'pods')!.map((h) => h.name)).to.deep.equal(['b.io']);
    expect(index.candidates('DELETE', 'apps', 'deployments')!.map((h) => h.name)).to.deep.equal(['b.io', 'c.io']);
    index.remove({ metadata: { name: 'b' } });
    expect(index.candidates('UPDATE', '', 'pods')).to.equal(undefined);
    expect(index.all().map((h) => [h.name, h.order])).to.deep.equal([['a.io', 0], ['c.io', 1]]);
  });

  it('fills v1 defaults for fields a stored object lacks', () => {
    const [h] = compileConfiguration({ metadata: { name: 'x' }, webhooks: [{ name: 'h', rules: [] }] }, true);
    expect(h).to.include({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', sideEffects: 'Unknown', timeoutSeconds: 10, reinvocationPolicy: 'Never' });
  });
});

describe('matchPolicy Equivalent', () => {
  const def = (version: string): ResourceDef => ({ group: 'widgets.io', version, kind: 'Widget', resource: 'widgets', subresources: [] } as unknown as ResourceDef);
  const attrs = { operation: 'CREATE', resource: def('v1'), name: 'w', ctx: {}, dryRun: false } as unknown as AdmissionAttributes;
  const t = target({ group: 'widgets.io', resource: 'widgets', namespace: '' });

  it('calls a webhook registered for another served version with that version\'s kind and resource', () => {
    const [exact, equivalent] = compileConfiguration({ metadata: { name: 'x' }, webhooks: [
      { name: 'exact', matchPolicy: 'Exact', rules: [{ operations: ['*'], apiGroups: ['widgets.io'], apiVersions: ['v1beta1'], resources: ['widgets'] }] },
      { name: 'equivalent', matchPolicy: 'Equivalent', rules: [{ operations: ['*'], apiGroups: ['widgets.io'], apiVersions: ['v1beta1'], resources: ['widgets'] }] },
    ] }, false);
    const eq = equivalentResourcesOf([def('v1'), def('v1beta1')]);
    expect(matchRules(exact, attrs, t, eq)).to.equal(undefined);
    const inv = matchRules(equivalent, attrs, t, eq)!;
    expect(inv.kind).to.deep.equal({ group: 'widgets.io', version: 'v1beta1', kind: 'Widget' });
    expect(inv.resource).to.deep.equal({ group: 'widgets.io', version: 'v1beta1', resource: 'widgets' });
  });
});

describe('webhook credentials (kubeConfigFile users)', () => {
  const c = (token: string) => ({ token });
  it('matches host:port, *.suffix, the bare host on 443, *, then the current user', () => {
    const r = new CredentialResolver(new Map([
      ['hook.example.com:8443', c('exact')], ['*.example.com:8443', c('wild-port')], ['*.example.com', c('wild')],
      ['plain.org', c('bare')], ['svc.ns.svc:444', c('svc-port')], ['*', c('star')],
    ]), c('current'));
    expect(r.forHostPort('hook.example.com:8443')!.token).to.equal('exact');
    expect(r.forHostPort('other.example.com:8443')!.token).to.equal('wild-port');
    expect(r.forHostPort('other.example.com:443')!.token).to.equal('wild');
    expect(r.forHostPort('plain.org:443')!.token).to.equal('bare');
    expect(r.forHostPort('plain.org:8443')!.token).to.equal('star');
    expect(r.forService('svc', 'ns', 444)!.token).to.equal('svc-port');
    expect(new CredentialResolver(new Map(), c('current')).forHostPort('x:443')!.token).to.equal('current');
    expect(new CredentialResolver().forHostPort('x:443')).to.equal(undefined);
  });
});
