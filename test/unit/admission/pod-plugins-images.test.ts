/**
 * AlwaysPullImages and SecurityContextDeny on hand-made requests: the pull policy forced on
 * every container of new pods and of updates that bring a new image (refused in the validating
 * phase when changed back), and the elevated security-context fields refused, first one named.
 */
import { expect } from 'chai';
import { alwaysPullImagesPlugin } from '../../../lib/admission/pod/always-pull-images';
import { securityContextDenyPlugin } from '../../../lib/admission/pod/security-context-deny';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

describe('AlwaysPullImages admission plugin', () => {
  const p = alwaysPullImagesPlugin();
  const all = {
    initContainers: [{ name: 'i', image: 'busybox', imagePullPolicy: 'IfNotPresent' }],
    containers: [{ name: 'a', image: 'nginx', imagePullPolicy: 'Never' }],
    ephemeralContainers: [{ name: 'e', image: 'busybox' }],
  };

  it('sets Always on every init, regular and ephemeral container of a new pod', async () => {
    const a = podAttrs(pod(all));
    await p.admit!(a);
    await p.validate!(a);
    const spec = specOf(a);
    expect([...spec.initContainers, ...spec.containers, ...spec.ephemeralContainers].map((c) => c.imagePullPolicy)).to.deep.equal(['Always', 'Always', 'Always']);
  });

  it('on update only when an image is new to the pod', async () => {
    const old = pod({ containers: [{ name: 'a', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] });
    const same = podAttrs(old, { operation: 'UPDATE', old });
    await p.admit!(same);
    await p.validate!(same);
    expect(specOf(same).containers[0].imagePullPolicy).to.equal('IfNotPresent');
    const newer = podAttrs(pod({ containers: [{ name: 'a', image: 'nginx:2', imagePullPolicy: 'IfNotPresent' }] }), { operation: 'UPDATE', old });
    await p.admit!(newer);
    expect(specOf(newer).containers[0].imagePullPolicy).to.equal('Always');
  });

  it('refuses in the validating phase a policy changed after it, one error per container as Kubernetes words them', async () => {
    const one = await rejection(() => p.validate!(podAttrs(pod({ containers: [{ name: 'a', image: 'x', imagePullPolicy: 'IfNotPresent' }] }))));
    expect(one.code).to.equal(403);
    expect(one.message).to.equal('pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
    const two = await rejection(() => p.validate!(podAttrs(pod(all))));
    expect(two.message).to.equal('[pods "web" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", '
      + 'pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", '
      + 'pods "web" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "": supported values: "Always"]');
  });

  it('leaves subresources alone', async () => {
    const a = podAttrs(pod(all), { operation: 'UPDATE', subresource: 'status', old: pod() });
    await p.admit!(a);
    await p.validate!(a);
    expect(specOf(a).containers[0].imagePullPolicy).to.equal('Never');
  });
});

describe('SecurityContextDeny admission plugin', () => {
  const p = securityContextDenyPlugin();
  const cases: [string, Record<string, unknown>, string][] = [
    ['pod supplementalGroups', { securityContext: { supplementalGroups: [1] } }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
    ['pod seLinuxOptions', { securityContext: { seLinuxOptions: { level: 's0' } } }, 'pod.Spec.SecurityContext.SELinuxOptions is forbidden'],
    ['pod runAsUser', { securityContext: { runAsUser: 0 } }, 'pod.Spec.SecurityContext.RunAsUser is forbidden'],
    ['pod fsGroup', { securityContext: { fsGroup: 2000 } }, 'pod.Spec.SecurityContext.FSGroup is forbidden'],
    ['init container runAsUser', { initContainers: [{ name: 'i', image: 'x', securityContext: { runAsUser: 0 } }] }, 'SecurityContext.RunAsUser is forbidden'],
    ['container seLinuxOptions', { containers: [{ name: 'a', image: 'x', securityContext: { seLinuxOptions: { user: 'u' } } }] }, 'SecurityContext.SELinuxOptions is forbidden'],
  ];
  for (const [what, spec, message] of cases) {
    it(`refuses ${what}`, async () => {
      const err = await rejection(() => p.validate!(podAttrs(pod(spec))));
      expect(err.code).to.equal(403);
      expect(err.message).to.equal(`pods "web" is forbidden: ${message}`);
    });
  }

  it('allows the other fields (runAsNonRoot, runAsGroup, capabilities)', async () => {
    await p.validate!(podAttrs(pod({
      securityContext: { runAsNonRoot: true, runAsGroup: 1000 },
      containers: [{ name: 'a', image: 'x', securityContext: { runAsGroup: 1, capabilities: { drop: ['ALL'] } } }],
    })));
  });
});
