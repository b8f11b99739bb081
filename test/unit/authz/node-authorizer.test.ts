import { expect } from 'chai';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { NodeGraph } from '../../../lib/authz/node/graph';
import { NodeAuthorizer, nodeIdentity } from '../../../lib/authz/node/node-authorizer';
import { nodeRules } from '../../../lib/authz/node/node-rules';
import { UserInfo } from '../../../lib/meta/user';
import { flavors } from '../../../lib/naming';

const naming = flavors.orch;
const n1: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

function req(user: UserInfo, verb: string, resource: string, opts: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: 'ns', name: '', ...opts };
}

describe('Node mode authorizer', () => {
  const graph = new NodeGraph('orch.io/config.mirror');
  graph.setPod({
    metadata: { name: 'web', namespace: 'ns' },
    spec: {
      nodeName: 'n1', serviceAccountName: 'runner', containers: [{ name: 'c' }],
      volumes: [{ name: 's', secret: { secretName: 'mine' } }, { name: 'c', configMap: { name: 'cfg' } }, { name: 'd', persistentVolumeClaim: { claimName: 'data' } }],
    },
  });
  graph.setPod({ metadata: { name: 'other', namespace: 'ns' }, spec: { nodeName: 'n2', containers: [{ name: 'c' }], volumes: [{ name: 's', secret: { secretName: 'theirs' } }] } });
  graph.setPersistentVolume({ metadata: { name: 'vol' }, spec: { claimRef: { namespace: 'ns', name: 'data' }, csi: { driver: 'd', nodePublishSecretRef: { name: 'vol-secret', namespace: 'ns' } } } });
  graph.setVolumeAttachment('va1', 'n1');
  const authz = new NodeAuthorizer(graph, nodeRules(naming), naming);
  const STORAGE = naming.group('storage');
  const UNRELATED = "no relationship found between node 'n1' and this object";

  const table: Array<[string, AuthorizationAttributes, 'allow' | 'no-opinion', string]> = [
    ['get a secret its pod mounts', req(n1, 'get', 'secrets', { name: 'mine' }), 'allow', ''],
    ['get a secret of a pod on another node', req(n1, 'get', 'secrets', { name: 'theirs' }), 'no-opinion', UNRELATED],
    ['get an unrelated secret', req(n1, 'get', 'secrets', { name: 'nobody' }), 'no-opinion', UNRELATED],
    ['get the secret in another namespace', req(n1, 'get', 'secrets', { name: 'mine', namespace: 'other' }), 'no-opinion', UNRELATED],
    ['list secrets (no name)', req(n1, 'list', 'secrets'), 'no-opinion', 'No Object name found'],
    ['watch secrets (no name)', req(n1, 'watch', 'secrets'), 'no-opinion', 'No Object name found'],
    ['update a related secret', req(n1, 'update', 'secrets', { name: 'mine' }), 'no-opinion', 'can only read resources of this type'],
    ['secrets across namespaces', req(n1, 'list', 'secrets', { namespace: '' }), 'no-opinion', 'can only read namespaced object of this type'],
    ['get a related configmap', req(n1, 'get', 'configmaps', { name: 'cfg' }), 'allow', ''],
    ['get a related claim', req(n1, 'get', 'persistentvolumeclaims', { name: 'data' }), 'allow', ''],
    ['list claims', req(n1, 'list', 'persistentvolumeclaims'), 'no-opinion', 'can only get individual resources of this type'],
    ['list its pods by spec.nodeName', req(n1, 'list', 'pods', { namespace: '', fieldSelector: 'spec.nodeName=n1' }), 'allow', ''],
    ['watch its pods by spec.nodeName==', req(n1, 'watch', 'pods', { namespace: '', fieldSelector: 'spec.nodeName==n1' }), 'allow', ''],
    ['list another node\'s pods', req(n1, 'list', 'pods', { namespace: '', fieldSelector: 'spec.nodeName=n2' }), 'no-opinion', 'can only list/watch pods with spec.nodeName field selector'],
    ['list every pod', req(n1, 'list', 'pods', { namespace: '' }), 'no-opinion', 'can only list/watch pods with spec.nodeName field selector'],
    ['update the status of a related claim', req(n1, 'update', 'persistentvolumeclaims', { name: 'data', subresource: 'status' }), 'allow', ''],
    ['get the status of a claim', req(n1, 'get', 'persistentvolumeclaims', { name: 'data', subresource: 'status' }), 'no-opinion', 'can only get/update/patch this type'],
    ['get the volume bound to its claim', req(n1, 'get', 'persistentvolumes', { name: 'vol', namespace: '' }), 'allow', ''],
    ['get the volume\'s secret', req(n1, 'get', 'secrets', { name: 'vol-secret' }), 'allow', ''],
    ['get its volume attachment', req(n1, 'get', 'volumeattachments', { apiGroup: STORAGE, name: 'va1', namespace: '' }), 'allow', ''],
    ['get a volume attachment elsewhere', req(n1, 'get', 'volumeattachments', { apiGroup: STORAGE, name: 'va2', namespace: '' }), 'no-opinion', UNRELATED],
    ['a token for its pod\'s service account', req(n1, 'create', 'serviceaccounts', { name: 'runner', subresource: 'token' }), 'allow', ''],
    ['a token for another account', req(n1, 'create', 'serviceaccounts', { name: 'default', subresource: 'token' }), 'no-opinion', UNRELATED],
    ['get a service account', req(n1, 'get', 'serviceaccounts', { name: 'runner' }), 'no-opinion', 'can only create tokens for individual service accounts'],
    ['its own CSINode', req(n1, 'update', 'csinodes', { apiGroup: STORAGE, name: 'n1', namespace: '' }), 'allow', ''],
    ['another CSINode', req(n1, 'get', 'csinodes', { apiGroup: STORAGE, name: 'n2', namespace: '' }), 'no-opinion', 'can only access CSINode with the same name as the requesting node'],
    ['its own Lease', req(n1, 'update', 'leases', { apiGroup: naming.group('coordination'), name: 'n1', namespace: 'orch-node-lease' }), 'allow', ''],
    ['a Lease elsewhere', req(n1, 'get', 'leases', { apiGroup: naming.group('coordination'), name: 'n1', namespace: 'ns' }), 'no-opinion', 'can only access leases in the "orch-node-lease" system namespace'],
    ['its own Node', req(n1, 'get', 'nodes', { name: 'n1', namespace: '' }), 'allow', ''],
    ['another Node', req(n1, 'get', 'nodes', { name: 'n2', namespace: '' }), 'no-opinion', "node 'n1' cannot read 'n2', only its own Node object"],
    ['all Nodes', req(n1, 'list', 'nodes', { namespace: '' }), 'no-opinion', "node 'n1' cannot read all nodes, only its own Node object"],
    ['its pod', req(n1, 'get', 'pods', { name: 'web' }), 'allow', ''],
    ['a pod on another node', req(n1, 'get', 'pods', { name: 'other' }), 'no-opinion', UNRELATED],
    ['list pods without a selector', req(n1, 'list', 'pods'), 'no-opinion', 'can only list/watch pods with spec.nodeName field selector'],
    ['pod status', req(n1, 'patch', 'pods', { name: 'web', subresource: 'status' }), 'allow', ''],
    ['pod exec', req(n1, 'create', 'pods', { name: 'web', subresource: 'exec' }), 'no-opinion', ''],
    ['static rules: services', req(n1, 'list', 'services'), 'allow', ''],
    ['static rules: events', req(n1, 'create', 'events'), 'allow', ''],
    ['static rules: token reviews', req(n1, 'create', 'tokenreviews', { apiGroup: naming.group('authentication'), namespace: '' }), 'allow', ''],
    ['nothing else', req(n1, 'delete', 'deployments', { apiGroup: 'apps', name: 'x' }), 'no-opinion', ''],
  ];
  for (const [what, attrs, decision, reason] of table) {
    it(`${decision === 'allow' ? 'allows' : 'refuses'}: ${what}`, () => {
      expect(authz.authorize(attrs)).to.deep.equal({ decision, reason });
    });
  }

  it('has no opinion about users who are not nodes, nor about node names without the nodes group', () => {
    expect(authz.authorize(req(bob, 'get', 'secrets', { name: 'mine' }))).to.deep.equal({ decision: 'no-opinion', reason: '' });
    const pretender: UserInfo = { name: 'system:node:n1', groups: ['system:authenticated'] };
    expect(authz.authorize(req(pretender, 'get', 'secrets', { name: 'mine' }))).to.deep.equal({ decision: 'no-opinion', reason: '' });
  });

  it('refuses a node user without a node name, with Kubernetes\' reason', () => {
    const nameless: UserInfo = { name: 'system:node:', groups: ['system:nodes'] };
    expect(authz.authorize(req(nameless, 'list', 'services'))).to.deep.equal({ decision: 'no-opinion', reason: 'unknown node for user "system:node:"' });
  });

  it('identifies nodes by name prefix and group', () => {
    expect(nodeIdentity(n1)).to.equal('n1');
    expect(nodeIdentity(bob)).to.equal(undefined);
    expect(nodeIdentity({ name: 'system:nodes:x', groups: ['system:nodes'] })).to.equal(undefined);
  });

  it('cannot list a node\'s rules (incomplete, with Kubernetes\' error); other users are complete and empty', () => {
    expect(authz.rulesFor(n1)).to.deep.equal({ rules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] });
    expect(authz.rulesFor(bob)).to.deep.equal({ rules: [], incomplete: false, errors: [] });
  });

  it('uses kube-node-lease and the k8s.io groups with --flavor=kubernetes', () => {
    const k = flavors.kubernetes;
    const kube = new NodeAuthorizer(graph, nodeRules(k), k);
    expect(kube.authorize(req(n1, 'get', 'leases', { apiGroup: 'coordination.k8s.io', name: 'n1', namespace: 'kube-node-lease' })).decision).to.equal('allow');
    expect(kube.authorize(req(n1, 'get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va1', namespace: '' })).decision).to.equal('allow');
    expect(kube.authorize(req(n1, 'create', 'tokenreviews', { apiGroup: 'authentication.k8s.io', namespace: '' })).decision).to.equal('allow');
  });
});
