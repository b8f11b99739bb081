/**
 * Protobuf of apiregistration/v1 APIService: every schema field survives JSON -> protobuf -> JSON
 * (caBundle as base64 bytes, the service's port a pointer, the two priorities and a condition's
 * type and status written even when zero), a list, and the bytes equal a protoc --encode vector
 * of what Go writes for a local APIService.
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import { apiServiceSchema } from '../../../../lib/registry/apiregistration/api-services/schema';
import { ApiObject } from '../../../../lib/scheme/types';

const MESSAGE = 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService';
const AV = 'apiregistration.k8s.io/v1';
const T0 = '2024-01-01T00:00:00Z';
const metadata = (name: string) => ({ name, uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0 });
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

const remote: ApiObject = {
  apiVersion: AV, kind: 'APIService', metadata: metadata('v1beta1.metrics.k8s.io'),
  spec: {
    service: { namespace: 'kube-system', name: 'metrics-server', port: 8443 },
    group: 'metrics.k8s.io', version: 'v1beta1', caBundle: CA, groupPriorityMinimum: 100, versionPriority: 100,
  },
  status: { conditions: [{ type: 'Available', status: 'False', lastTransitionTime: T0, reason: 'FailedDiscoveryCheck', message: 'failing or missing response' }] },
};

describe('APIService protobuf', () => {
  it('is a protobuf kind with its list, in both flavors', () => {
    for (const group of ['apiregistration.k8s.io', 'apiregistration.orch.io']) {
      expect(hasProtobuf(`${group}/v1`, 'APIService')).to.equal(true);
      expect(hasProtobuf(`${group}/v1`, 'APIServiceList')).to.equal(true);
    }
  });

  it('round trips every field the schema serves', () => {
    const spec = apiServiceSchema.properties!.spec as any;
    const full: ApiObject = { ...remote, spec: { ...(remote.spec as object), insecureSkipTLSVerify: true } };
    expect(Object.keys(full.spec as object)).to.have.members(Object.keys(spec.properties));
    expect(Object.keys((full.spec as any).service)).to.have.members(Object.keys(spec.properties.service.properties));
    const condition = (apiServiceSchema.properties!.status as any).properties.conditions.items;
    expect(Object.keys((full.status as any).conditions[0])).to.have.members(Object.keys(condition.properties));
    expect(decodeProtobuf(encodeProtobuf(full))).to.deep.equal(full);
  });

  it('is served at v1beta1 (switched on by --runtime-config) with the same messages in its own package', () => {
    const beta = { ...remote, apiVersion: 'apiregistration.k8s.io/v1beta1', spec: { ...(remote.spec as object), insecureSkipTLSVerify: true } };
    expect(hasProtobuf(beta.apiVersion, 'APIServiceList')).to.equal(true);
    expect(decodeProtobuf(encodeProtobuf(beta))).to.deep.equal(beta);
  });

  it('keeps zero priorities and a port of 0, and leaves an absent service absent', () => {
    const zero: ApiObject = { apiVersion: AV, kind: 'APIService', metadata: metadata('v1.'), spec: { version: 'v1', groupPriorityMinimum: 0, versionPriority: 0 }, status: {} };
    const back = decodeProtobuf(encodeProtobuf(zero)) as any;
    expect(back.spec).to.deep.equal({ version: 'v1', groupPriorityMinimum: 0, versionPriority: 0 });
    expect(back.spec).not.to.have.property('service');
    const port0: ApiObject = { ...zero, spec: { service: { namespace: 'ns', name: 'svc', port: 0 }, group: 'g.example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 } };
    expect((decodeProtobuf(encodeProtobuf(port0)) as any).spec.service).to.deep.equal({ namespace: 'ns', name: 'svc', port: 0 });
  });

  it('round trips a list', () => {
    const list: ApiObject = { apiVersion: AV, kind: 'APIServiceList', metadata: { resourceVersion: '9' }, items: [{ ...remote, apiVersion: undefined, kind: undefined }] } as unknown as ApiObject;
    const back = decodeProtobuf(encodeProtobuf(list)) as any;
    expect(back.items).to.have.length(1);
    expect(back.items[0].spec).to.deep.equal(remote.spec);
    expect(back.items[0].status).to.deep.equal(remote.status);
  });

  it('writes the bytes Go writes (protoc --encode)', function () {
    try { requireProtoc(); } catch { this.skip(); }
    const local = {
      metadata: { name: 'v1.apps' },
      spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 },
      status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: T0, reason: 'Local', message: 'Local APIServices are always available' }] },
    };
    const vector = protocEncode(MESSAGE, `
      metadata { name: "v1.apps" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
      spec { group: "apps" version: "v1" insecureSkipTLSVerify: false groupPriorityMinimum: 17800 versionPriority: 15 }
      status { conditions { type: "Available" status: "True" lastTransitionTime { seconds: 1704067200 nanos: 0 } reason: "Local" message: "Local APIServices are always available" } }`);
    expect(encodeMessage(MESSAGE, local).toString('hex')).to.equal(vector.toString('hex'));
    expect(decodeMessage(MESSAGE, vector)).to.deep.equal(local);
  });
});
