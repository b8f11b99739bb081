import { expect } from 'chai';
import { NodeGraph } from '../../../lib/authz/node/graph';

const MIRROR = 'orch.io/config.mirror';
const pod = (name: string, node: string | undefined, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) },
  spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'c' }], ...spec },
});
const withSecret = (secret: string) => ({ volumes: [{ name: 'v', secret: { secretName: secret } }] });
const withClaim = (claim: string) => ({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: claim } }] });
const pv = (name: string, claim?: { namespace: string; name: string }, secret?: string) => ({
  metadata: { name },
  spec: { ...(claim ? { claimRef: claim } : {}), ...(secret ? { rbd: { secretRef: { name: secret } } } : {}) },
});

describe('Node mode graph', () => {
  let g: NodeGraph;
  beforeEach(() => { g = new NodeGraph(MIRROR); });

  it('relates a pod bound to a node, and what it names, to that node only', () => {
    g.setPod(pod('p', 'n1', { ...withSecret('s'), serviceAccountName: 'sa' }));
    expect(g.hasPath('n1', 'pod', 'ns', 'p')).to.equal(true);
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(true);
    expect(g.hasPath('n1', 'serviceaccount', 'ns', 'sa')).to.equal(true);
    expect(g.hasPath('n2', 'secret', 'ns', 's')).to.equal(false);
    expect(g.hasPath('n1', 'secret', 'other', 's')).to.equal(false);
    expect(g.hasPath('n1', 'configmap', 'ns', 's')).to.equal(false);
  });

  it('ignores pods not yet bound, and relates them once spec.nodeName is set', () => {
    g.setPod(pod('p', undefined, withSecret('s')));
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(false);
    g.setPod(pod('p', 'n1', withSecret('s')));
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(true);
  });

  it('keeps an object related while any pod on the node still names it', () => {
    g.setPod(pod('a', 'n1', withSecret('s')));
    g.setPod(pod('b', 'n1', withSecret('s')));
    g.setPod(pod('a', 'n1', withSecret('s'))); // a repeated upsert counts once
    g.removePod('ns', 'a');
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(true);
    g.removePod('ns', 'b');
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(false);
    expect(g.hasPath('n1', 'pod', 'ns', 'b')).to.equal(false);
    expect(g.size).to.deep.equal({ pods: 0, objects: 0, volumes: 0, attachments: 0 });
  });

  it('a pod recreated on another node moves its references there', () => {
    g.setPod(pod('p', 'n1', withSecret('s')));
    g.setPod(pod('p', 'n2', withSecret('s')));
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(false);
    expect(g.hasPath('n2', 'secret', 'ns', 's')).to.equal(true);
  });

  it('mirror pods relate the node to themselves only', () => {
    g.setPod(pod('m', 'n1', { ...withSecret('s'), serviceAccountName: 'sa' }, { [MIRROR]: 'x' }));
    expect(g.hasPath('n1', 'pod', 'ns', 'm')).to.equal(true);
    expect(g.hasPath('n1', 'secret', 'ns', 's')).to.equal(false);
    expect(g.hasPath('n1', 'serviceaccount', 'ns', 'sa')).to.equal(false);
  });

  it('pod <- claim <- volume <- secret: the volume bound to a used claim, and its secret', () => {
    g.setPersistentVolume(pv('vol', { namespace: 'ns', name: 'claim' }, 'pv-secret'));
    expect(g.hasPath('n1', 'pv', '', 'vol')).to.equal(false);
    g.setPod(pod('p', 'n1', withClaim('claim')));
    expect(g.hasPath('n1', 'pvc', 'ns', 'claim')).to.equal(true);
    expect(g.hasPath('n1', 'pv', '', 'vol')).to.equal(true);
    expect(g.hasPath('n1', 'secret', 'ns', 'pv-secret')).to.equal(true);
    expect(g.hasPath('n2', 'pv', '', 'vol')).to.equal(false);
    // Rebound elsewhere: the old chain is gone.
    g.setPersistentVolume(pv('vol', { namespace: 'ns', name: 'another' }, 'pv-secret'));
    expect(g.hasPath('n1', 'pv', '', 'vol')).to.equal(false);
    expect(g.hasPath('n1', 'secret', 'ns', 'pv-secret')).to.equal(false);
    g.setPersistentVolume(pv('vol', { namespace: 'ns', name: 'claim' }, 'pv-secret'));
    g.removePersistentVolume('vol');
    expect(g.hasPath('n1', 'secret', 'ns', 'pv-secret')).to.equal(false);
    expect(g.hasPath('n1', 'pvc', 'ns', 'claim')).to.equal(true);
  });

  it('a volume without claimRef relates to nothing', () => {
    g.setPod(pod('p', 'n1', withClaim('claim')));
    g.setPersistentVolume(pv('vol', undefined, 'pv-secret'));
    expect(g.hasPath('n1', 'pv', '', 'vol')).to.equal(false);
    expect(g.hasPath('n1', 'secret', '', 'pv-secret')).to.equal(false);
  });

  it('volume attachments belong to their spec.nodeName', () => {
    g.setVolumeAttachment('va', 'n1');
    expect(g.hasPath('n1', 'volumeattachment', '', 'va')).to.equal(true);
    expect(g.hasPath('n2', 'volumeattachment', '', 'va')).to.equal(false);
    g.setVolumeAttachment('va', '');
    expect(g.hasPath('n1', 'volumeattachment', '', 'va')).to.equal(false);
    g.setVolumeAttachment('va', 'n2');
    g.removeVolumeAttachment('va');
    expect(g.hasPath('n2', 'volumeattachment', '', 'va')).to.equal(false);
  });
});
