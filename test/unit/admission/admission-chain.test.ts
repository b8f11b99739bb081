/**
 * The admission chain: mutating plugins in order (once more when one asks for reinvocation), then
 * validating plugins in order, the first rejection ending the request; which plugins a server
 * runs for --enable/--disable-admission-plugins (order irrelevant, the spec's defaults, unknown
 * names refused with kube-apiserver's message), and how a plugin that cannot be made stops it.
 */
import { expect } from 'chai';
import winston from 'winston';
import { AdmissionChain, AdmissionPlugin } from '../../../lib/admission/interfaces';
import { AdmissionAttributes } from '../../../lib/registry/admission-attributes';
import { DEFAULT_ENABLED, ORDERED_PLUGINS, enabledPlugins, unknownPluginError } from '../../../lib/admission/plugin-names';
import { buildAdmission } from '../../../lib/admission/registry';
import { PluginConfigs } from '../../../lib/admission/config-file';
import { AdmissionMetrics } from '../../../lib/admission/metrics';
import { MetricsRegistry } from '../../../lib/metrics/registry';
import { parseFlags } from '../../../lib/server/flags';
import { flavors } from '../../../lib/naming';
import { ResourceDef } from '../../../lib/scheme/types';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceDef;
const roles = { group: 'rbac.authorization.orch.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true } as ResourceDef;

const attrs = (resource = configMaps, name = 'x'): AdmissionAttributes => ({
  operation: 'CREATE', resource, namespace: 'team', name, object: { metadata: { name } }, dryRun: false, ctx: { namespace: 'team' },
});

function recorder(log: string[], name: string, opts: { admit?: boolean; validate?: boolean; reinvokeOnce?: boolean; reject?: 'admit' | 'validate' } = {}): AdmissionPlugin {
  const p: AdmissionPlugin = { name };
  if (opts.admit !== false) {
    p.admit = async (a) => {
      log.push(`${name}.admit${a.reinvocation?.isReinvoke ? '(again)' : ''}`);
      if (opts.reinvokeOnce && !a.reinvocation!.isReinvoke) a.reinvocation!.reinvoke = true;
      if (opts.reject === 'admit') throw new Error(`${name} says no`);
    };
  }
  if (opts.validate) {
    p.validate = async () => {
      log.push(`${name}.validate`);
      if (opts.reject === 'validate') throw new Error(`${name} says no`);
    };
  }
  return p;
}

const silent = winston.createLogger({ silent: true });

function deps(flags: string[] = []) {
  return {
    naming: flavors.orch, config: parseFlags(flags), stores: new Map(), log: silent,
    namespaces: { get: async () => undefined }, authorization: {}, metrics: new AdmissionMetrics(), configFile: '', caPem: '',
  };
}

describe('AdmissionChain', () => {
  it('runs the mutating plugins in order, then the validating ones in order', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      recorder(log, 'a', { validate: true }), recorder(log, 'b', { admit: false, validate: true }), recorder(log, 'c'),
    ]);
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    expect(log).to.deep.equal(['a.admit', 'c.admit', 'a.validate', 'b.validate']);
    expect(chain.names()).to.deep.equal(['a', 'b', 'c']);
  });

  it('runs the mutating plugins once more when one asks, and the validating ones once', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder(log, 'a'), recorder(log, 'b', { reinvokeOnce: true, validate: true })]);
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    expect(log).to.deep.equal(['a.admit', 'b.admit', 'a.admit(again)', 'b.admit(again)', 'b.validate']);
  });

  it('stops at the first rejection of either phase', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder(log, 'a', { reject: 'admit' }), recorder(log, 'b', { validate: true })]);
    await chain.admit(attrs()).then(() => expect.fail('admitted'), (e) => expect(e.message).to.equal('a says no'));
    expect(log).to.deep.equal(['a.admit']);

    const log2: string[] = [];
    const chain2 = new AdmissionChain([recorder(log2, 'a', { validate: true, reject: 'validate' }), recorder(log2, 'b', { validate: true })]);
    await chain2.validate(attrs()).then(() => expect.fail('admitted'), (e) => expect(e.message).to.equal('a says no'));
    expect(log2).to.deep.equal(['a.validate']);
  });

  it('does not call a plugin on a resource outside its `resources`, and still observes its metrics', async () => {
    const log: string[] = [];
    const registry = new MetricsRegistry();
    const podsOnly = { ...recorder(log, 'pods-only', { validate: true }), resources: ['/pods'] };
    const chain = new AdmissionChain([recorder(log, 'any'), podsOnly], new AdmissionMetrics(registry));
    const pods = { ...configMaps, resource: 'pods', kind: 'Pod' } as ResourceDef;
    for (const r of [configMaps, pods, configMaps, roles]) {
      const a = attrs(r);
      await chain.admit(a);
      await chain.validate(a);
    }
    expect(log).to.deep.equal(['any.admit', 'any.admit', 'pods-only.admit', 'pods-only.validate', 'any.admit', 'any.admit']);
    // Four requests: every plugin observed in each phase it has, called or not.
    const text = await registry.render();
    const count = (name: string, type: string) => Number(new RegExp(
      `apiserver_admission_controller_admission_duration_seconds_count\\{name="${name}",type="${type}",operation="CREATE",rejected="false"\\} (\\d+)`).exec(text)?.[1]);
    expect([count('any', 'admit'), count('pods-only', 'admit'), count('pods-only', 'validate')]).to.deep.equal([4, 4, 4]);
  });

  it('starts and stops every plugin', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { name: 'a', start: async () => { log.push('a.start'); }, stop: () => { log.push('a.stop'); } },
      { name: 'b', admit: async () => undefined },
    ]);
    await chain.start();
    await chain.stop();
    expect(log).to.deep.equal(['a.start', 'a.stop']);
  });
});

describe('plugin names', () => {
  it('enables the spec\'s default set in Kubernetes\' order', () => {
    expect(enabledPlugins([], [])).to.deep.equal(ORDERED_PLUGINS.filter((n) => DEFAULT_ENABLED.has(n)));
    expect([...DEFAULT_ENABLED].sort()).to.deep.equal([
      'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass',
      'DefaultStorageClass', 'DefaultTolerationSeconds', 'LimitRanger', 'MutatingAdmissionWebhook',
      'NamespaceLifecycle', 'PersistentVolumeClaimResize', 'PodSecurity', 'Priority', 'ResourceQuota',
      'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection', 'TaintNodesByCondition',
      'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
    ]);
  });

  it('adds and removes plugins whatever the order of the flags\' lists', () => {
    const one = enabledPlugins(['AlwaysDeny', 'AlwaysPullImages', 'AlwaysAdmit'], ['ServiceAccount', 'PodSecurity']);
    const other = enabledPlugins(['AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages'], ['PodSecurity', 'ServiceAccount']);
    expect(one).to.deep.equal(other);
    expect(one[0]).to.equal('AlwaysAdmit');
    expect(one[one.length - 1]).to.equal('AlwaysDeny');
    expect(one).to.include('AlwaysPullImages').and.not.include('ServiceAccount').and.not.include('PodSecurity');
    expect(one.indexOf('AlwaysPullImages')).to.be.lessThan(one.indexOf('MutatingAdmissionWebhook'));
  });

  it('names the first unknown plugin as kube-apiserver does', () => {
    expect(unknownPluginError(['AlwaysAdmit', 'Foo', 'Bar'], [])).to.equal('enable-admission-plugins plugin "Foo" is unknown');
    expect(unknownPluginError([], ['Baz'])).to.equal('disable-admission-plugins plugin "Baz" is unknown');
    expect(unknownPluginError(['AlwaysAdmit'], ['AlwaysDeny'])).to.equal(undefined);
  });

  it('stops parseFlags on an unknown name with that line', () => {
    expect(() => parseFlags(['--enable-admission-plugins=NamespaceLifecycle,Foo'])).to.throw('enable-admission-plugins plugin "Foo" is unknown');
    expect(() => parseFlags(['--disable-admission-plugins=Foo'])).to.throw('disable-admission-plugins plugin "Foo" is unknown');
  });
});

describe('buildAdmission', () => {
  it('makes the enabled plugins in order, the always-on steps before the webhooks and AlwaysDeny', async () => {
    const always: AdmissionPlugin = { name: 'storage-step', validate: async () => undefined };
    const { chain } = await buildAdmission(deps(['--enable-admission-plugins=AlwaysDeny,AlwaysAdmit']), new PluginConfigs(), [always]);
    const names = chain.names();
    expect(names[0]).to.equal('AlwaysAdmit');
    expect(names.slice(-1)).to.deep.equal(['AlwaysDeny']);
    expect(names).to.include('NamespaceLifecycle').and.include('storage-step');
    expect(names.indexOf('NamespaceLifecycle')).to.be.lessThan(names.indexOf('storage-step'));
    for (const tail of ['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']) {
      if (names.includes(tail)) expect(names.indexOf('storage-step')).to.be.lessThan(names.indexOf(tail));
    }
  });

  it('leaves out disabled plugins and reports enabled ones with nothing to act on', async () => {
    const { chain, inert } = await buildAdmission(deps(['--disable-admission-plugins=NamespaceLifecycle']), new PluginConfigs());
    expect(chain.names()).not.to.include('NamespaceLifecycle').and.not.include('AlwaysDeny');
    // Every plugin of the default set has its kinds now: none is inert.
    expect(inert).not.to.include('NamespaceLifecycle').and.not.include('LimitRanger').and.not.include('ResourceQuota');
    expect(chain.names()).to.include('LimitRanger').and.include('ResourceQuota');
  });

  it('stops on a plugin that cannot be made, naming it', async () => {
    const err = await buildAdmission(deps(['--enable-admission-plugins=ImagePolicyWebhook']), new PluginConfigs())
      .then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal('couldn\'t init admission plugin "ImagePolicyWebhook": no config specified');
  });

  it('AlwaysDeny refuses in both phases with kube\'s sentence', async () => {
    const { chain } = await buildAdmission(deps(['--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=NamespaceLifecycle']), new PluginConfigs());
    const deny = chain.plugins.find((p) => p.name === 'AlwaysDeny')!;
    for (const phase of [deny.admit!, deny.validate!]) {
      const err = await phase(attrs()).then(() => undefined, (e) => e);
      expect(err).to.include({ code: 403, reason: 'Forbidden', message: 'configmaps "x" is forbidden: admission control is denying all modifications' });
    }
    const grouped = await deny.admit!(attrs(roles, 'r')).then(() => undefined, (e) => e);
    expect(grouped.message).to.equal('roles.rbac.authorization.orch.io "r" is forbidden: admission control is denying all modifications');
  });
});
