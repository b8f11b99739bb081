/**
 * The ServiceAccount plugin on hand-made requests: the default account, the projected token
 * volume and its mounts, automount opt-outs, image pull secrets, mountable-secrets enforcement,
 * mirror pods, missing accounts (looked up live, several times for `default`), and what it
 * leaves alone.
 */
import { expect } from 'chai';
import { serviceAccountPlugin, ServiceAccountGetter } from '../../../lib/admission/pod/service-account';
import { flavors } from '../../../lib/naming';
import { ApiObject } from '../../../lib/scheme/types';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

const MOUNT = '/var/run/secrets/orch.io/serviceaccount';

function accounts(list: ApiObject[], live: ApiObject[] = []) {
  const calls: string[] = [];
  const get: ServiceAccountGetter = async (ns, name, isLive) => {
    calls.push(`${isLive ? 'live' : 'cache'}:${ns}/${name}`);
    return (isLive ? [...list, ...live] : list).find((a) => a.metadata?.name === name && a.metadata?.namespace === ns);
  };
  return { get, calls };
}

const account = (name: string, extra: Record<string, unknown> = {}): ApiObject =>
  ({ ...extra, metadata: { name, namespace: 'team', ...((extra.metadata as object) ?? {}) } });

function plugin(list: ApiObject[], live: ApiObject[] = []) {
  const a = accounts(list, live);
  return { p: serviceAccountPlugin(flavors.orch, a.get, { retryIntervalMs: () => 1, generateName: (prefix) => `${prefix}abcde` }), calls: a.calls };
}

describe('ServiceAccount admission plugin', () => {
  it('sets the default account and mounts a projected token, CA and namespace volume read-only in every container and init container', async () => {
    const { p } = plugin([account('default')]);
    const a = podAttrs(pod({ initContainers: [{ name: 'init', image: 'busybox' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }));
    await p.admit!(a);
    await p.validate!(a);
    const spec = specOf(a);
    expect(spec.serviceAccountName).to.equal('default');
    expect(spec.volumes).to.deep.equal([{
      name: 'kube-api-access-abcde',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    }]);
    const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: MOUNT };
    expect(spec.containers[0].volumeMounts).to.deep.equal([mount]);
    expect(spec.initContainers[0].volumeMounts).to.deep.equal([mount]);
    expect(spec.ephemeralContainers[0].volumeMounts).to.equal(undefined);
  });

  it('uses the kubernetes flavor names (kube-root-ca.crt, kubernetes.io path)', async () => {
    const p = serviceAccountPlugin(flavors.kubernetes, accounts([account('default')]).get);
    const a = podAttrs(pod());
    await p.admit!(a);
    const spec = specOf(a);
    expect(spec.volumes[0].name).to.match(/^kube-api-access-[a-z0-9]{5}$/);
    expect(spec.volumes[0].projected.sources[1].configMap.name).to.equal('kube-root-ca.crt');
    expect(spec.containers[0].volumeMounts[0].mountPath).to.equal('/var/run/secrets/kubernetes.io/serviceaccount');
  });

  it('leaves a container that already mounts something at the path alone, and adds no volume when none needs it', async () => {
    const { p } = plugin([account('default')]);
    const own = { name: 'mine', mountPath: MOUNT };
    const a = podAttrs(pod({ containers: [{ name: 'app', image: 'nginx', volumeMounts: [own] }], volumes: [{ name: 'mine', emptyDir: {} }] }));
    await p.admit!(a);
    expect(specOf(a).containers[0].volumeMounts).to.deep.equal([own]);
    expect(specOf(a).volumes).to.deep.equal([{ name: 'mine', emptyDir: {} }]);
  });

  it('mounts nothing when the pod, or else the account, says automountServiceAccountToken: false; the pod wins', async () => {
    const { p } = plugin([account('default'), account('quiet', { automountServiceAccountToken: false })]);
    const off = podAttrs(pod({ automountServiceAccountToken: false }));
    await p.admit!(off);
    expect(specOf(off).volumes).to.equal(undefined);
    const quiet = podAttrs(pod({ serviceAccountName: 'quiet' }));
    await p.admit!(quiet);
    expect(specOf(quiet).volumes).to.equal(undefined);
    const podWins = podAttrs(pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true }));
    await p.admit!(podWins);
    expect(specOf(podWins).volumes).to.have.length(1);
  });

  it("copies the account's imagePullSecrets to a pod without any, and keeps the pod's own", async () => {
    const { p } = plugin([account('default', { imagePullSecrets: [{ name: 'registry' }] })]);
    const bare = podAttrs(pod());
    await p.admit!(bare);
    expect(specOf(bare).imagePullSecrets).to.deep.equal([{ name: 'registry' }]);
    const own = podAttrs(pod({ imagePullSecrets: [{ name: 'mine' }] }));
    await p.admit!(own);
    expect(specOf(own).imagePullSecrets).to.deep.equal([{ name: 'mine' }]);
  });

  it('refuses a pod whose account does not exist after a live read, as kube-apiserver words it', async () => {
    const { p, calls } = plugin([account('default')]);
    const err = await rejection(() => p.admit!(podAttrs(pod({ serviceAccountName: 'robot' }))));
    expect(err.code).to.equal(403);
    expect(err.reason).to.equal('Forbidden');
    expect(err.message).to.equal('pods "web" is forbidden: error looking up service account team/robot: serviceaccount "robot" not found');
    expect(calls).to.deep.equal(['cache:team/robot', 'live:team/robot']);
  });

  it('reads a missing default account live several times (its controller may be creating it), and takes one that appears', async () => {
    const missing = plugin([]);
    const err = await rejection(() => missing.p.admit!(podAttrs(pod())));
    expect(err.message).to.equal('pods "web" is forbidden: error looking up service account team/default: serviceaccount "default" not found');
    expect(missing.calls.filter((c) => c.startsWith('live'))).to.have.length(10);
    const appearing = plugin([], [account('default')]);
    const a = podAttrs(pod());
    await appearing.p.admit!(a);
    expect(specOf(a).serviceAccountName).to.equal('default');
  });

  it('names the generateName of a pod without a name yet', async () => {
    const { p } = plugin([]);
    const a = podAttrs({ metadata: { generateName: 'web-' }, spec: { serviceAccountName: 'robot', containers: [{ name: 'a', image: 'x' }] } });
    expect((await rejection(() => p.admit!(a))).message).to.match(/^pods "web-" is forbidden: /);
  });

  describe('with <domain>/enforce-mountable-secrets: "true" on the account', () => {
    const strict = account('default', {
      metadata: { annotations: { 'orch.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'allowed' }], imagePullSecrets: [{ name: 'pull' }],
    });
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ['listed secrets', {
        volumes: [{ name: 's', secret: { secretName: 'allowed' } }],
        containers: [{ name: 'app', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'allowed', key: 'k' } } }], envFrom: [{ secretRef: { name: 'allowed' } }] }],
        imagePullSecrets: [{ name: 'pull' }],
      }, undefined],
      ['a secret volume', { volumes: [{ name: 's', secret: { secretName: 'other' } }] },
        'volume with secret.secretName="other" is not allowed because service account default does not reference that secret'],
      ['an init container env var', { initContainers: [{ name: 'init', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] },
        'init container init with envVar A referencing secret.secretName="other" is not allowed because service account default does not reference that secret'],
      ['a container envFrom', { containers: [{ name: 'app', image: 'x', envFrom: [{ secretRef: { name: 'other' } }] }] },
        'container app with envFrom referencing secret.secretName="other" is not allowed because service account default does not reference that secret'],
      ['an image pull secret', { imagePullSecrets: [{ name: 'pull' }, { name: 'other' }] },
        'imagePullSecrets[1].name="other" is not allowed because service account default does not reference that imagePullSecret'],
    ];
    for (const [what, spec, message] of cases) {
      it(`${message ? 'refuses' : 'allows'} ${what}`, async () => {
        const { p } = plugin([strict]);
        const a = podAttrs(pod(spec));
        if (!message) {
          await p.admit!(a);
          await p.validate!(a);
          return;
        }
        const err = await rejection(() => p.admit!(a));
        expect(err.code).to.equal(403);
        expect(err.message).to.equal(`pods "web" is forbidden: ${message}`);
      });
    }

    it('checks the ephemeral containers an ephemeralcontainers update adds', async () => {
      const { p } = plugin([strict]);
      const a = podAttrs(pod({ serviceAccountName: 'default', ephemeralContainers: [{ name: 'dbg', image: 'x', envFrom: [{ secretRef: { name: 'other' } }] }] }),
        { operation: 'UPDATE', subresource: 'ephemeralcontainers', old: pod() });
      const err = await rejection(() => p.validate!(a));
      expect(err.message).to.equal('pods "web" is forbidden: ephemeral container dbg with envFrom referencing secret.secretName="other" is not allowed because service account default does not reference that secret');
    });
  });

  describe('mirror pods (<domain>/config.mirror)', () => {
    const mirror = (spec: Record<string, unknown>) => pod(spec, { annotations: { 'orch.io/config.mirror': 'hash' } });
    it('are left unchanged: no account, no volume', async () => {
      const { p, calls } = plugin([account('default')]);
      const a = podAttrs(mirror({}));
      await p.admit!(a);
      await p.validate!(a);
      expect(specOf(a).serviceAccountName).to.equal(undefined);
      expect(specOf(a).volumes).to.equal(undefined);
      expect(calls).to.deep.equal([]);
    });
    const refusals: [Record<string, unknown>, string][] = [
      [{ serviceAccountName: 'default' }, 'a mirror pod may not reference service accounts'],
      [{ volumes: [{ name: 's', secret: { secretName: 'x' } }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'a', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
    ];
    for (const [spec, message] of refusals) {
      it(`refuses: ${message} (${Object.keys(spec)[0]})`, async () => {
        const { p } = plugin([account('default')]);
        expect((await rejection(() => p.admit!(podAttrs(mirror(spec))))).message).to.equal(`pods "web" is forbidden: ${message}`);
      });
    }
  });

  it('leaves updates, subresources and other resources alone', async () => {
    const { p, calls } = plugin([]);
    await p.admit!(podAttrs(pod(), { operation: 'UPDATE', old: pod() }));
    await p.validate!(podAttrs(pod(), { operation: 'UPDATE', old: pod() }));
    await p.admit!(podAttrs(pod(), { operation: 'UPDATE', subresource: 'status', old: pod() }));
    await p.admit!(podAttrs(pod(), { resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as never }));
    expect(calls).to.deep.equal([]);
  });
});
