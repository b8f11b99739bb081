/**
 * Protobuf of the RBAC kinds (k8s.io.api.rbac.v1): every field the schemas serve has a message
 * field of the same name, objects with every field set round trip (lists too), both spellings of
 * the group are registered, and the bytes of Subject, RoleRef and PolicyRule are those Go writes
 * with Kubernetes' field numbers (written out here by hand, not by our .proto).
 */
import { expect } from 'chai';
import { Type } from 'protobufjs';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { kindMessageType } from '../../../../lib/scheme/protobuf/kinds';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { Schema } from '../../../../lib/scheme/schema';
import { clusterRoleBindingSchema } from '../../../../lib/registry/rbac/cluster-role-bindings/schema';
import { clusterRoleSchema } from '../../../../lib/registry/rbac/cluster-roles/schema';
import { roleBindingSchema } from '../../../../lib/registry/rbac/role-bindings/schema';
import { roleSchema } from '../../../../lib/registry/rbac/roles/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const RV = 'rbac.authorization.k8s.io/v1';
const G = 'rbac.authorization.k8s.io';
const meta = (name: string, namespace?: string) => ({
  name, ...(namespace ? { namespace } : {}), uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', labels: { a: 'b' },
});
const fullRule = { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'pods/log'], resourceNames: ['web'], nonResourceURLs: ['/healthz', '/api/*'] };
const subjects = [
  { kind: 'User', apiGroup: G, name: 'alice' },
  { kind: 'Group', apiGroup: G, name: 'devs' },
  { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
];

const FULL: ApiObject[] = [
  { apiVersion: RV, kind: 'Role', metadata: meta('reader', 'default'), rules: [fullRule, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
  {
    apiVersion: RV, kind: 'ClusterRole', metadata: meta('aggregate'), rules: [fullRule],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, {}] },
  },
  { apiVersion: RV, kind: 'RoleBinding', metadata: meta('read', 'default'), roleRef: { apiGroup: G, kind: 'Role', name: 'reader' }, subjects },
  { apiVersion: RV, kind: 'ClusterRoleBinding', metadata: meta('view-all'), roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' }, subjects },
];

/** Schema properties (below `path`) with no message field of the same name: protobuf would drop them. */
function missingInProto(schema: Schema, type: Type, path: string): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => {
    if (name === 'metadata' || name === 'apiVersion' || name === 'kind') return [];
    const field = type.fields[name];
    if (!field) return [`${path}.${name}`];
    field.resolve();
    const inner = s.type === 'array' ? s.items : s;
    return inner?.properties && field.resolvedType instanceof Type ? missingInProto(inner, field.resolvedType, `${path}.${name}`) : [];
  });
}

describe('protobuf for the RBAC kinds', () => {
  it('registers every kind and its list in both spellings of the group', () => {
    for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']) {
      for (const gv of [RV, 'rbac.authorization.orch.io/v1']) {
        expect(hasProtobuf(gv, kind), `${gv} ${kind}`).to.equal(true);
        expect(hasProtobuf(gv, `${kind}List`), `${gv} ${kind}List`).to.equal(true);
      }
    }
    expect(hasProtobuf('v1', 'Role')).to.equal(false);
  });

  it('has a message field for every field the schemas serve', () => {
    const schemas: Array<[string, Schema]> = [['Role', roleSchema], ['ClusterRole', clusterRoleSchema], ['RoleBinding', roleBindingSchema], ['ClusterRoleBinding', clusterRoleBindingSchema]];
    for (const [kind, schema] of schemas) expect(missingInProto(schema, kindMessageType(RV, kind)!, kind), kind).to.deep.equal([]);
  });

  describe('objects with every field set round trip', () => {
    for (const obj of FULL) it(String(obj.kind), () => expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj));
  });

  it('a RoleBindingList (items without apiVersion/kind on the wire)', () => {
    const items = FULL.filter((o) => o.kind === 'RoleBinding');
    const list = { apiVersion: RV, kind: 'RoleBindingList', metadata: { resourceVersion: '9' }, items };
    const bare = items.map(({ apiVersion: _a, kind: _k, ...fields }) => fields);
    expect(decodeProtobuf(encodeProtobuf(list))).to.deep.equal({ ...list, items: bare });
  });

  it('writes Subject, RoleRef and PolicyRule with Kubernetes\' numbers, empty Go strings included', () => {
    const str = (tag: number, s: string) => Buffer.concat([Buffer.from([tag, Buffer.byteLength(s)]), Buffer.from(s)]).toString('hex');
    // Subject: kind 1, apiGroup 2, name 3, namespace 4 (Go value strings: always written).
    expect(encodeMessage('k8s.io.api.rbac.v1.Subject', { kind: 'ServiceAccount', name: 'sa' }).toString('hex'))
      .to.equal(str(0x0a, 'ServiceAccount') + str(0x12, '') + str(0x1a, 'sa') + str(0x22, ''));
    // RoleRef: apiGroup 1, kind 2, name 3.
    expect(encodeMessage('k8s.io.api.rbac.v1.RoleRef', { apiGroup: G, kind: 'Role', name: 'r' }).toString('hex'))
      .to.equal(str(0x0a, G) + str(0x12, 'Role') + str(0x1a, 'r'));
    // PolicyRule: verbs 1, apiGroups 2, resources 3, resourceNames 4, nonResourceURLs 5.
    expect(encodeMessage('k8s.io.api.rbac.v1.PolicyRule', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }).toString('hex'))
      .to.equal(str(0x0a, 'get') + str(0x12, '') + str(0x1a, 'pods') + str(0x22, 'a'));
    expect(encodeMessage('k8s.io.api.rbac.v1.PolicyRule', { verbs: ['get'], nonResourceURLs: ['/x'] }).toString('hex'))
      .to.equal(str(0x0a, 'get') + str(0x2a, '/x'));
  });

  it('reads empty roleRef and subject strings from Go\'s bytes as Go\'s JSON shows them (no omitempty)', () => {
    const wire = Buffer.from('0a001200' + '1a00', 'hex');
    expect(decodeMessage('k8s.io.api.rbac.v1.RoleRef', wire)).to.deep.equal({ apiGroup: '', kind: '', name: '' });
    expect(decodeMessage('k8s.io.api.rbac.v1.Subject', Buffer.from('0a04557365721200' + '1a00' + '2200', 'hex'))).to.deep.equal({ kind: 'User', name: '' });
  });
});
