/**
 * The PodSecurity plugin on admission attributes: which requests it evaluates, the 403 and its
 * message, warnings and audit annotations, exemptions, namespace label validation, and the
 * warnings about existing pods when a namespace's enforce level is tightened.
 */
import { expect } from 'chai';
import { podSecurity } from '../../../lib/admission/pod-security/index';
import { podCheckLimits } from '../../../lib/admission/pod-security/namespaces';
import { AdmissionAttributes, Operation } from '../../../lib/registry/admission-attributes';
import type { PluginDeps } from '../../../lib/admission/plugin-factory';
import { flavors } from '../../../lib/naming';
import { ApiObject, ResourceDef } from '../../../lib/scheme/types';

const PODS = { group: '', version: 'v1', resource: 'pods', namespaced: true } as ResourceDef;
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces', namespaced: false } as ResourceDef;
const L = 'pod-security.kubernetes.io/';

interface Setup {
  namespaces?: Record<string, Record<string, string>>;
  pods?: Record<string, ApiObject[]>;
  config?: unknown;
}

function plugin(s: Setup) {
  const podStore = {
    collectionPrefix: (ns: string) => `/registry/pods/${ns}/`,
    deps: {
      cache: {
        ready: true,
        list: (prefix: string) => ({
          kvs: (s.pods?.[prefix.split('/')[3]] ?? []).map((p) => ({ key: '', value: Buffer.from(JSON.stringify(p)), modRevision: 7, createRevision: 7 })),
        }),
      },
    },
  };
  return podSecurity({
    naming: flavors.kubernetes,
    pluginConfig: s.config,
    namespaces: { get: async (name: string) => (s.namespaces?.[name] ? { metadata: { name, labels: s.namespaces[name] } } : undefined) },
    stores: new Map([['/v1/pods', podStore]]),
  } as unknown as PluginDeps);
}

interface Outcome { error?: { code: number; message: string }; warnings: string[]; annotations: Record<string, string> }

async function run(p: ReturnType<typeof podSecurity>, a: Partial<AdmissionAttributes> & { operation: Operation }, user = 'alice'): Promise<Outcome> {
  const out: Outcome = { warnings: [], annotations: {} };
  const attrs = {
    resource: PODS, name: '', dryRun: false, ...a,
    ctx: { user: { name: user, groups: [] }, warn: (m: string) => out.warnings.push(m), annotate: (k: string, v: string) => { out.annotations[k] = v; } },
  } as AdmissionAttributes;
  await p.validate!(attrs).catch((e) => { out.error = { code: e.code, message: e.message }; });
  return out;
}

const pod = (name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): ApiObject => ({
  kind: 'Pod', metadata: { name, ...extra }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const privileged = (name: string) => pod(name, { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] });
const createPod = (ns: string, obj: ApiObject) => ({ operation: 'CREATE' as const, namespace: ns, name: obj.metadata!.name!, object: obj });

const RESTRICTED_LATEST = 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
  + 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
  + 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
  + 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity plugin: pods', () => {
  const namespaces = {
    open: {},
    locked: { [`${L}enforce`]: 'restricted' },
    mixed: { [`${L}enforce`]: 'baseline', [`${L}enforce-version`]: 'v1.30', [`${L}audit`]: 'restricted', [`${L}warn`]: 'restricted', [`${L}warn-version`]: 'v1.21' },
    broken: { [`${L}enforce`]: 'bogus' },
  };

  it('enforce refuses with 403 and Kubernetes\' message, recording the policy and audit violations', async () => {
    const out = await run(plugin({ namespaces }), createPod('locked', pod('web')));
    expect(out.error).to.deep.equal({ code: 403, message: `pods "web" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_LATEST}` });
    expect(out.annotations).to.deep.equal({ [`${L}enforce-policy`]: 'restricted:latest' });
    expect(out.warnings).to.deep.equal([]);
  });

  it('privileged namespaces admit anything and record privileged:latest', async () => {
    const out = await run(plugin({ namespaces }), createPod('open', privileged('p')));
    expect(out).to.deep.equal({ warnings: [], annotations: { [`${L}enforce-policy`]: 'privileged:latest' } });
  });

  it('audit and warn of their own level and version, enforce passing', async () => {
    const out = await run(plugin({ namespaces }), createPod('mixed', pod('web')));
    expect(out.error).to.equal(undefined);
    expect(out.annotations).to.deep.equal({
      [`${L}enforce-policy`]: 'baseline:v1.30',
      [`${L}audit-violations`]: `would violate PodSecurity "restricted:latest": ${RESTRICTED_LATEST}`,
    });
    // restricted v1.21: before the capabilities, runAsUser and Windows revisions.
    expect(out.warnings).to.deep.equal(['would violate PodSecurity "restricted:v1.21": allowPrivilegeEscalation != false '
      + '(container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set '
      + 'securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")']);
  });

  it('invalid enforce labels enforce restricted and record the parse error', async () => {
    const out = await run(plugin({ namespaces }), createPod('broken', pod('web')));
    expect(out.error?.message).to.equal(`pods "web" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_LATEST}`);
    expect(out.annotations[`${L}error`]).to.equal('Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: '
      + 'Invalid value: "bogus": must be one of privileged, baseline, restricted');
  });

  it('exemptions by namespace, user and runtime class from the configuration', async () => {
    const config = {
      apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration',
      exemptions: { namespaces: ['locked'], usernames: ['ci-bot'], runtimeClasses: ['kata'] },
    };
    const p = plugin({ namespaces: { ...namespaces, other: { [`${L}enforce`]: 'restricted' } }, config });
    expect(await run(p, createPod('locked', privileged('a')))).to.deep.equal({ warnings: [], annotations: { [`${L}exempt`]: 'namespace' } });
    expect(await run(p, createPod('other', privileged('b')), 'ci-bot')).to.deep.equal({ warnings: [], annotations: { [`${L}exempt`]: 'user' } });
    const kata = pod('c', { runtimeClassName: 'kata', hostNetwork: true });
    expect(await run(p, createPod('other', kata))).to.deep.equal({ warnings: [], annotations: { [`${L}exempt`]: 'runtimeClass' } });
    expect((await run(p, createPod('other', privileged('d')))).error?.code).to.equal(403);
  });

  it('configured defaults apply to unlabelled namespaces', async () => {
    const config = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' } };
    const out = await run(plugin({ namespaces, config }), createPod('open', privileged('p')));
    expect(out.error?.message).to.equal('pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  });

  it('updates are evaluated only when an image or the containers change; ignored subresources never', async () => {
    const p = plugin({ namespaces });
    const old = privileged('p');
    const labelled = { ...old, metadata: { name: 'p', labels: { a: 'b' } } };
    expect((await run(p, { operation: 'UPDATE', namespace: 'locked', name: 'p', object: labelled, oldObject: old })).error).to.equal(undefined);
    const newImage = privileged('p');
    (newImage.spec as { containers: Array<{ image: string }> }).containers[0].image = 'nginx:2';
    expect((await run(p, { operation: 'UPDATE', namespace: 'locked', name: 'p', object: newImage, oldObject: old })).error?.code).to.equal(403);
    const debug = { ...old, spec: { ...(old.spec as object), ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } };
    const sub = await run(p, { operation: 'UPDATE', namespace: 'locked', name: 'p', subresource: 'ephemeralcontainers', object: debug, oldObject: old });
    expect(sub.error?.message).to.contain('violates PodSecurity "restricted:latest"');
    for (const subresource of ['status', 'binding', 'eviction']) {
      expect(await run(p, { operation: 'CREATE', namespace: 'locked', name: 'p', subresource, object: { kind: 'Eviction' } })).to.deep.equal({ warnings: [], annotations: {} });
    }
    expect(await run(p, { operation: 'DELETE', namespace: 'locked', name: 'p', oldObject: old })).to.deep.equal({ warnings: [], annotations: {} });
  });
});

const ns = (name: string, labels: Record<string, string>): ApiObject => ({ kind: 'Namespace', metadata: { name, labels } });
const updateNs = (name: string, labels: Record<string, string>, oldLabels: Record<string, string>) =>
  ({ operation: 'UPDATE' as const, resource: NAMESPACES, name, object: ns(name, labels), oldObject: ns(name, oldLabels) });

describe('PodSecurity plugin: namespaces', () => {
  it('invalid labels are refused on create (422) and on update only when they change', async () => {
    const p = plugin({});
    const out = await run(p, { operation: 'CREATE', resource: NAMESPACES, name: 'x', object: ns('x', { [`${L}enforce`]: 'strict', [`${L}warn-version`]: '1.2' }) });
    expect(out.error).to.deep.equal({
      code: 422,
      message: 'Namespace "x" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, '
        + 'restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.2": must be "latest" or "v1.x"]',
    });
    const bad = { [`${L}audit`]: 'nope' };
    expect((await run(p, updateNs('x', { ...bad, other: 'label' }, bad))).error).to.equal(undefined);
    expect((await run(p, updateNs('x', { [`${L}audit`]: 'nope2' }, bad))).error?.code).to.equal(422);
    expect((await run(p, updateNs('x', bad, {}))).error?.message)
      .to.equal('Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "nope": must be one of privileged, baseline, restricted');
  });

  it('tightening enforce warns about existing violating pods, grouped by violations', async () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true };
    const pods = {
      team: [
        privileged('b-priv'), privileged('a-priv'), pod('ok', { hostNetwork: false }), pod('host', { hostNetwork: true }),
        { ...privileged('rs-2'), metadata: { name: 'rs-2', ownerReferences: [owner] } },
      ],
    };
    const p = plugin({ pods });
    const out = await run(p, updateNs('team', { [`${L}enforce`]: 'baseline' }, {}));
    expect(out.error).to.equal(undefined);
    expect(out.warnings).to.deep.equal([
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'a-priv (and 2 other pods): privileged',
      'host: host namespaces',
    ]);
    // Unchanged, relaxed at the same version, or privileged: nothing is checked.
    expect((await run(p, updateNs('team', { [`${L}enforce`]: 'baseline', x: 'y' }, { [`${L}enforce`]: 'baseline' }))).warnings).to.deep.equal([]);
    expect((await run(p, updateNs('team', { [`${L}enforce`]: 'baseline' }, { [`${L}enforce`]: 'restricted' }))).warnings).to.deep.equal([]);
    expect((await run(p, updateNs('team', { [`${L}enforce`]: 'privileged' }, { [`${L}enforce`]: 'restricted' }))).warnings).to.deep.equal([]);
    // A version change at a laxer level is checked.
    expect((await run(p, updateNs('team', { [`${L}enforce`]: 'baseline', [`${L}enforce-version`]: 'v1.0' }, { [`${L}enforce`]: 'restricted' }))).warnings)
      .to.have.length(3);
  });

  it('at most 3000 pods are checked, within the time limit, and pods with an exempt runtime class are skipped', async () => {
    const many = Array.from({ length: 3002 }, (_, i) => privileged(`p${String(i).padStart(4, '0')}`));
    const saved = podCheckLimits.timeoutMs;
    podCheckLimits.timeoutMs = 60_000;
    const out = await run(plugin({ pods: { big: many } }), updateNs('big', { [`${L}enforce`]: 'baseline' }, {}))
      .finally(() => { podCheckLimits.timeoutMs = saved; });
    expect(out.warnings).to.deep.equal([
      'new PodSecurity enforce level only checked against the first 3000 of 3002 existing pods',
      'existing pods in namespace "big" violate the new PodSecurity enforce level "baseline:latest"',
      'p0000 (and 2999 other pods): privileged',
    ]);
    podCheckLimits.timeoutMs = 0;
    const late = await run(plugin({ pods: { big: many.slice(0, 3) } }), updateNs('big', { [`${L}enforce`]: 'baseline' }, {}))
      .finally(() => { podCheckLimits.timeoutMs = saved; });
    expect(late.warnings).to.deep.equal([
      'new PodSecurity enforce level only checked against the first 1 of 3 existing pods',
      'existing pods in namespace "big" violate the new PodSecurity enforce level "baseline:latest"',
      'p0000: privileged',
    ]);
    const config = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { runtimeClasses: ['kata'] } };
    const kata = pod('k', { runtimeClassName: 'kata', hostPID: true });
    expect((await run(plugin({ pods: { t: [kata] }, config }), updateNs('t', { [`${L}enforce`]: 'baseline' }, {}))).warnings).to.deep.equal([]);
  });

  it('an exempt namespace setting its own policy is told the policy is ignored', async () => {
    const config = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['ops'] } };
    const p = plugin({ config, pods: { ops: [privileged('x')] } });
    const out = await run(p, { operation: 'CREATE', resource: NAMESPACES, name: 'ops', object: ns('ops', { [`${L}enforce`]: 'restricted', [`${L}audit`]: 'baseline' }) });
    expect(out.warnings).to.deep.equal(['namespace "ops" is exempt from Pod Security, and the policy (enforce=restricted:latest, audit=baseline:latest) will be ignored']);
    expect((await run(p, updateNs('ops', { [`${L}enforce`]: 'baseline' }, {}))).warnings)
      .to.deep.equal(['namespace "ops" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored']);
  });
});
