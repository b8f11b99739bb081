/**
 * Protobuf for flowcontrol.apiserver.k8s.io/v1 (FlowSchema, PriorityLevelConfiguration): byte
 * equality with protoc --encode vectors of bootstrap objects, written as Go writes them (value
 * fields such as matchingPrecedence and clusterScope always, a nil distinguisherMethod or queuing
 * not, lendablePercent 0 as the set pointer it is), and the vectors read back as the JSON the
 * server serves.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../helpers/protoc';
import { decodeMessage, encodeMessage } from '../../../lib/scheme/protobuf/message-codec';
import { MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS } from '../../../lib/registry/flowcontrol/bootstrap-configuration';

const PKG = 'k8s.io.api.flowcontrol.v1';
const META = (name: string) => `metadata { name: "${name}" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {}
  annotations { key: "apf.kubernetes.io/autoupdate-spec" value: "true" } }`;
const body = (o: { metadata: object; spec: object }) => ({ metadata: o.metadata, spec: o.spec });

describe('protobuf for flowcontrol v1', function () {
  this.timeout(300_000);
  before(requireProtoc);

  it('PriorityLevelConfiguration catch-all (Reject: no queuing; lendablePercent 0 written)', () => {
    const catchAll = MANDATORY_PRIORITY_LEVELS.find((o) => o.metadata.name === 'catch-all')!;
    const vector = protocEncode(`${PKG}.PriorityLevelConfiguration`, `${META('catch-all')}
      spec { type: "Limited" limited { nominalConcurrencyShares: 5 limitResponse { type: "Reject" } lendablePercent: 0 } }
      status {}`);
    expect(encodeMessage(`${PKG}.PriorityLevelConfiguration`, body(catchAll)).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(`${PKG}.PriorityLevelConfiguration`, vector)).to.deep.equal(body(catchAll));
  });

  it('FlowSchema system-leader-election (clusterScope false written, service account subject)', () => {
    const fs = SUGGESTED_FLOW_SCHEMAS.find((o) => o.metadata.name === 'system-leader-election')!;
    const vector = protocEncode(`${PKG}.FlowSchema`, `${META('system-leader-election')}
      spec {
        priorityLevelConfiguration { name: "leader-election" } matchingPrecedence: 100 distinguisherMethod { type: "ByUser" }
        rules {
          subjects { kind: "User" user { name: "system:kube-controller-manager" } }
          subjects { kind: "User" user { name: "system:kube-scheduler" } }
          subjects { kind: "ServiceAccount" serviceAccount { namespace: "kube-system" name: "*" } }
          resourceRules { verbs: "get" verbs: "create" verbs: "update" apiGroups: "coordination.k8s.io" resources: "leases" clusterScope: false namespaces: "*" }
        }
      }
      status {}`);
    expect(encodeMessage(`${PKG}.FlowSchema`, body(fs)).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(`${PKG}.FlowSchema`, vector)).to.deep.equal(body(fs));
  });

  it('FlowSchema probes (no distinguisher method, non-resource rules at field 6)', () => {
    const fs = SUGGESTED_FLOW_SCHEMAS.find((o) => o.metadata.name === 'probes')!;
    const vector = protocEncode(`${PKG}.FlowSchema`, `${META('probes')}
      spec {
        priorityLevelConfiguration { name: "exempt" } matchingPrecedence: 2
        rules {
          subjects { kind: "Group" group { name: "system:unauthenticated" } }
          subjects { kind: "Group" group { name: "system:authenticated" } }
          nonResourceRules { verbs: "get" nonResourceURLs: "/healthz" nonResourceURLs: "/readyz" nonResourceURLs: "/livez" }
        }
      }
      status {}`);
    expect(encodeMessage(`${PKG}.FlowSchema`, body(fs)).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(`${PKG}.FlowSchema`, vector)).to.deep.equal(body(fs));
  });
});
