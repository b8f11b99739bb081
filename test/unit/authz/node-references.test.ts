import { expect } from 'chai';
import { persistentVolumeSecrets, podReferences } from '../../../lib/authz/node/references';

const pod = (spec: Record<string, unknown>) => ({ metadata: { name: 'web', namespace: 'ns' }, spec });

describe('Node mode: what a pod references', () => {
  it('secrets through volumes, projected sources, CSI, env, envFrom and image pull secrets of every container kind', () => {
    const r = podReferences(pod({
      imagePullSecrets: [{ name: 'pull' }, { name: '' }],
      initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-envfrom' } }] }],
      containers: [{
        name: 'c',
        env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', value: 'plain' }],
        envFrom: [{ secretRef: { name: 'envfrom-secret' } }, { configMapRef: { name: 'envfrom-cm' } }],
      }],
      ephemeralContainers: [{ name: 'e', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'debug-secret', key: 'k' } } }] }],
      volumes: [
        { name: 'v1', secret: { secretName: 'vol-secret' } },
        { name: 'v2', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }, { serviceAccountToken: { path: 't' } }] } },
        { name: 'v3', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
        { name: 'v4', rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd-secret' } } },
        { name: 'v5', azureFile: { secretName: 'azure-secret', shareName: 's' } },
      ],
    }));
    expect(r.secrets.sort()).to.deep.equal(['azure-secret', 'csi-secret', 'debug-secret', 'env-secret', 'envfrom-secret',
      'init-envfrom', 'proj-secret', 'pull', 'rbd-secret', 'vol-secret']);
    expect(r.configMaps.sort()).to.deep.equal(['envfrom-cm', 'proj-cm']);
  });

  it('configmaps through volumes and env; claims through persistentVolumeClaim and ephemeral volumes (<pod>-<volume>)', () => {
    const r = podReferences(pod({
      serviceAccountName: 'runner',
      containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }] }],
      volumes: [
        { name: 'cfg', configMap: { name: 'vol-cm' } },
        { name: 'data', persistentVolumeClaim: { claimName: 'data-claim' } },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      ],
    }));
    expect(r.configMaps.sort()).to.deep.equal(['env-cm', 'vol-cm']);
    expect(r.claims.sort()).to.deep.equal(['data-claim', 'web-scratch']);
    expect(r.serviceAccount).to.equal('runner');
    expect(r.secrets).to.deep.equal([]);
  });

  it('reads odd shapes without throwing and names nothing from them', () => {
    const r = podReferences({ metadata: { name: 'x' }, spec: { containers: 'nope', volumes: [null, 3, { name: 'v', secret: 'x' }] } } as never);
    expect(r).to.deep.equal({ secrets: [], configMaps: [], claims: [], serviceAccount: '' });
    expect(podReferences({ metadata: {} })).to.deep.equal({ secrets: [], configMaps: [], claims: [], serviceAccount: '' });
  });
});

describe('Node mode: what a persistent volume hands to its node', () => {
  const pv = (source: Record<string, unknown>, claimNamespace = 'apps') =>
    ({ metadata: { name: 'pv1' }, spec: { claimRef: { namespace: claimNamespace, name: 'c' }, ...source } });

  it('a reference without a namespace means the bound claim\'s namespace; its own namespace wins', () => {
    expect(persistentVolumeSecrets(pv({ rbd: { secretRef: { name: 's' } } }))).to.deep.equal([{ namespace: 'apps', name: 's' }]);
    expect(persistentVolumeSecrets(pv({ iscsi: { secretRef: { name: 's', namespace: 'other' } } }))).to.deep.equal([{ namespace: 'other', name: 's' }]);
    expect(persistentVolumeSecrets(pv({ azureFile: { secretName: 'az' } }))).to.deep.equal([{ namespace: 'apps', name: 'az' }]);
    expect(persistentVolumeSecrets(pv({ azureFile: { secretName: 'az', secretNamespace: 'z' } }))).to.deep.equal([{ namespace: 'z', name: 'az' }]);
  });

  it('CSI: node publish, stage and expand secrets, never the controller-side ones', () => {
    const secrets = persistentVolumeSecrets(pv({
      csi: {
        driver: 'd', volumeHandle: 'h',
        controllerPublishSecretRef: { name: 'cp', namespace: 'x' }, controllerExpandSecretRef: { name: 'ce', namespace: 'x' },
        nodePublishSecretRef: { name: 'np', namespace: 'x' }, nodeStageSecretRef: { name: 'ns', namespace: 'x' }, nodeExpandSecretRef: { name: 'ne', namespace: 'x' },
      },
    }));
    expect(secrets.map((s) => s.name)).to.deep.equal(['np', 'ns', 'ne']);
  });

  it('a volume without secrets hands over none', () => {
    expect(persistentVolumeSecrets(pv({ hostPath: { path: '/x' } }))).to.deep.equal([]);
  });
});
