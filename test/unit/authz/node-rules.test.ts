import { expect } from 'chai';
import { nodeRules } from '../../../lib/authz/node/node-rules';
import { flavors } from '../../../lib/naming';
import { PolicyRule } from '../../../lib/registry/rbac/types';

/** Kubernetes' system:node ClusterRole (bootstrappolicy testdata/cluster-roles.yaml), as group|resources|verbs, sorted. */
const KUBERNETES_SYSTEM_NODE = [
  'authentication.k8s.io|tokenreviews|create',
  'authorization.k8s.io|localsubjectaccessreviews,subjectaccessreviews|create',
  '|services|get,list,watch',
  '|nodes|create,get,list,watch',
  '|nodes/status|patch,update',
  '|nodes|patch,update',
  '|events|create,patch,update',
  '|pods|get,list,watch',
  '|pods|create,delete',
  '|pods/status|patch,update',
  '|pods/eviction|create',
  '|configmaps,secrets|get,list,watch',
  '|persistentvolumeclaims,persistentvolumes|get',
  '|endpoints|get',
  'certificates.k8s.io|certificatesigningrequests|create,get,list,watch',
  'coordination.k8s.io|leases|create,delete,get,patch,update',
  'storage.k8s.io|volumeattachments|get',
  '|serviceaccounts/token|create',
  '|persistentvolumeclaims/status|get,patch,update',
  'storage.k8s.io|csidrivers|get,list,watch',
  'storage.k8s.io|csinodes|create,delete,get,patch,update',
  'node.k8s.io|runtimeclasses|get,list,watch',
];

const flat = (r: PolicyRule) => [(r.apiGroups ?? []).join(','), [...r.resources ?? []].sort().join(','), [...r.verbs].sort().join(',')].join('|');

describe('nodeRules', () => {
  it('with --flavor=kubernetes are exactly the rules of Kubernetes\' system:node role, in its order', () => {
    expect(nodeRules(flavors.kubernetes).map(flat)).to.deep.equal(KUBERNETES_SYSTEM_NODE);
  });

  it('spell the named groups with the orch.io domain in the orch flavor', () => {
    const groups = new Set(nodeRules(flavors.orch).flatMap((r) => r.apiGroups ?? []));
    expect([...groups].sort()).to.deep.equal(['', 'authentication.orch.io', 'authorization.orch.io', 'certificates.orch.io',
      'coordination.orch.io', 'node.orch.io', 'storage.orch.io']);
  });

  it('hand out a fresh list each time', () => {
    const a = nodeRules(flavors.orch);
    a[0].verbs.push('delete');
    expect(nodeRules(flavors.orch)[0].verbs).to.deep.equal(['create']);
  });
});
