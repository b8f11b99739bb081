/**
 * Protobuf for networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy and core/v1
 * ComponentStatus: an object with every served field survives JSON -> protobuf -> JSON (a field
 * the schema serves and proto/ lacks would be dropped and fail here), lists come along, and the
 * bytes of an Ingress (its rule value embedded, IngressBackend's fields numbered 4 and 3,
 * HTTPIngressPath's pathType numbered after backend) and a NetworkPolicy equal protoc's.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { ApiObject } from '../../../../lib/scheme/types';

const NV = 'networking.k8s.io/v1';
const META = { name: 'full', namespace: 'default', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 };
const selector = { matchLabels: { app: 'db' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] };

/** One object per kind with every field its schema serves set (non-zero). */
const FULL: ApiObject[] = [
  {
    apiVersion: NV, kind: 'Ingress', metadata: META,
    spec: {
      ingressClassName: 'nginx',
      defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'static' } },
      tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
      rules: [{ host: 'a.example.com', http: { paths: [
        { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
        { path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } },
      ] } }],
    },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', hostname: 'lb.example.com', ports: [{ port: 443, protocol: 'TCP', error: 'Pending' }] }] } },
  },
  {
    apiVersion: NV, kind: 'IngressClass', metadata: { ...META, namespace: undefined },
    spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p', scope: 'Namespace', namespace: 'infra' } },
  },
  {
    apiVersion: NV, kind: 'NetworkPolicy', metadata: META,
    spec: {
      podSelector: selector,
      ingress: [{ ports: [{ protocol: 'TCP', port: 5432 }, { protocol: 'UDP', port: 'dns' }], from: [{ podSelector: selector, namespaceSelector: { matchLabels: { team: 'a' } } }] }],
      egress: [{ ports: [{ protocol: 'TCP', port: 1000, endPort: 2000 }], to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
      policyTypes: ['Ingress', 'Egress'],
    },
  },
  {
    apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'scheduler' },
    conditions: [{ type: 'Healthy', status: 'False', message: 'probe failed', error: 'timeout' }],
  },
].map((o) => JSON.parse(JSON.stringify(o)) as ApiObject);

describe('networking/v1 and ComponentStatus protobuf', () => {
  it('has protobuf for the four kinds in both flavors', () => {
    for (const kind of ['Ingress', 'IngressClass', 'NetworkPolicy']) {
      expect(hasProtobuf(NV, kind), kind).to.equal(true);
      expect(hasProtobuf('networking.orch.io/v1', kind), kind).to.equal(true);
    }
    expect(hasProtobuf('v1', 'ComponentStatus')).to.equal(true);
  });

  for (const obj of FULL) {
    it(`${obj.kind}: every field round trips`, () => expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj));
  }

  it('a list round trips (items without apiVersion and kind)', () => {
    const items = FULL.filter((o) => o.kind === 'NetworkPolicy');
    const list = { apiVersion: NV, kind: 'NetworkPolicyList', metadata: { resourceVersion: '9' }, items };
    expect(decodeProtobuf(encodeProtobuf(list))).to.deep.equal({ ...list, items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) });
  });

  it('keeps a zero port of an IngressPortStatus (no omitempty in Go)', () => {
    const ing = { ...FULL[0], status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ports: [{ port: 0, protocol: 'TCP' }] }] } } };
    expect((decodeProtobuf(encodeProtobuf(ing)) as Record<string, any>).status.loadBalancer.ingress[0].ports[0]).to.deep.equal({ port: 0, protocol: 'TCP' });
  });

  describe('byte equality with protoc --encode', function () {
    this.timeout(300_000);
    before(requireProtoc);
    const meta = 'metadata { name: "web" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }';

    it('Ingress', () => {
      const ing = {
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          ingressClassName: 'nginx', tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
          rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
        },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
      };
      const vector = protocEncode('k8s.io.api.networking.v1.Ingress', `${meta}
        spec {
          tls { hosts: "a.example.com" secretName: "tls" }
          rules { host: "a.example.com" ingressRuleValue { http { paths { path: "/" backend { service { name: "web" port { name: "" number: 80 } } } pathType: "Prefix" } } } }
          ingressClassName: "nginx"
        }
        status { loadBalancer { ingress { ip: "192.0.2.1" hostname: "" } } }`);
      expect(encodeMessage('k8s.io.api.networking.v1.Ingress', ing).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.networking.v1.Ingress', vector)).to.deep.equal(ing);
    });

    it('NetworkPolicy', () => {
      const np = {
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          podSelector: { matchLabels: { app: 'db' } },
          ingress: [{ ports: [{ protocol: 'TCP', port: 5432 }], from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
          policyTypes: ['Ingress'],
        },
      };
      const vector = protocEncode('k8s.io.api.networking.v1.NetworkPolicy', `${meta}
        spec {
          podSelector { matchLabels { key: "app" value: "db" } }
          ingress { ports { protocol: "TCP" port { type: 0 intVal: 5432 strVal: "" } } from { ipBlock { cidr: "10.0.0.0/8" except: "10.1.0.0/16" } } }
          policyTypes: "Ingress"
        }`);
      expect(encodeMessage('k8s.io.api.networking.v1.NetworkPolicy', np).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage('k8s.io.api.networking.v1.NetworkPolicy', vector)).to.deep.equal(np);
    });
  });
});
