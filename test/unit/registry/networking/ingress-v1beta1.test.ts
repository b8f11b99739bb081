/**
 * Ingress v1beta1 <-> networking v1 (lib/registry/networking/ingresses/conversion.ts): every
 * backend form (numeric, string and empty-string ports, a name without a port, a port without a
 * name, a resource, a resource beside a service) converts as Kubernetes' conversion.go does and
 * round-trips both ways; v1beta1's pathType default; v1's validation errors renamed to the
 * v1beta1 field paths.
 */
import { expect } from 'chai';
import { backendFromV1beta1, backendToV1beta1, ingressFromV1beta1, ingressToV1beta1 } from '../../../../lib/registry/networking/ingresses/conversion';
import { asV1beta1Errors, defaultIngressV1beta1 } from '../../../../lib/registry/networking/ingresses/v1beta1';
import { fieldErrors } from '../../../../lib/meta/field-errors';
import { ApiObject } from '../../../../lib/scheme/types';
import { decodeProtobuf, encodeProtobuf } from '../../../../lib/scheme/protobuf';

const resource = { apiGroup: 'example.com', kind: 'Bucket', name: 'b' };

/** [case, v1beta1 backend as written, v1 backend, v1beta1 backend as read back]. */
const BACKENDS: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
  ['numeric port', { serviceName: 'web', servicePort: 80 }, { service: { name: 'web', port: { number: 80 } } }, { serviceName: 'web', servicePort: 80 }],
  ['named port', { serviceName: 'web', servicePort: 'http' }, { service: { name: 'web', port: { name: 'http' } } }, { serviceName: 'web', servicePort: 'http' }],
  ['name without a port', { serviceName: 'web' }, { service: { name: 'web', port: {} } }, { serviceName: 'web', servicePort: 0 }],
  ['port without a name', { servicePort: 8080 }, { service: { name: '', port: { number: 8080 } } }, { servicePort: 8080 }],
  ['resource', { resource }, { resource }, { resource, servicePort: 0 }],
  ['resource with a zero port', { resource, servicePort: 0 }, { resource }, { resource, servicePort: 0 }],
  ['resource beside a service (kept for validation to refuse)', { resource, serviceName: 'web', servicePort: 80 }, { resource, service: { name: 'web', port: { number: 80 } } }, { resource, serviceName: 'web', servicePort: 80 }],
];

describe('Ingress v1beta1 conversion', () => {
  for (const [name, beta, v1, back] of BACKENDS) {
    it(`backend, ${name}: to v1 and back`, () => {
      expect(backendFromV1beta1(beta)).to.deep.equal(v1);
      expect(backendToV1beta1(v1)).to.deep.equal(back);
      expect(backendFromV1beta1(backendToV1beta1(v1)), 'v1 -> v1beta1 -> v1 is the identity').to.deep.equal(v1);
    });
  }

  it('an empty string port counts as a service (which validation refuses); read back, it is gone, as in Kubernetes', () => {
    expect(backendFromV1beta1({ servicePort: '' })).to.deep.equal({ service: { name: '', port: {} } });
    expect(backendToV1beta1({ service: { name: '', port: {} } })).to.deep.equal({ servicePort: 0 });
  });

  it('an object: spec.backend <-> spec.defaultBackend, every rule path converted, the rest untouched', () => {
    const beta = {
      apiVersion: 'extensions/v1beta1', kind: 'Ingress', metadata: { name: 'i', namespace: 'ns', annotations: { a: 'b' } },
      spec: {
        ingressClassName: 'c', backend: { serviceName: 'd', servicePort: 'web' }, tls: [{ hosts: ['x.example.com'], secretName: 's' }],
        rules: [{ host: 'x.example.com', http: { paths: [{ path: '/a', pathType: 'Exact', backend: { serviceName: 'a', servicePort: 1 } }, { path: '/b', pathType: 'Prefix', backend: { resource } }] } }, { host: 'y.example.com' }],
      },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    } as ApiObject;
    const v1 = ingressFromV1beta1(beta, 'networking.k8s.io/v1');
    expect(v1).to.deep.equal({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: beta.metadata, status: beta.status,
      spec: {
        ingressClassName: 'c', defaultBackend: { service: { name: 'd', port: { name: 'web' } } }, tls: [{ hosts: ['x.example.com'], secretName: 's' }],
        rules: [{ host: 'x.example.com', http: { paths: [{ path: '/a', pathType: 'Exact', backend: { service: { name: 'a', port: { number: 1 } } } }, { path: '/b', pathType: 'Prefix', backend: { resource } }] } }, { host: 'y.example.com' }],
      },
    });
    const back = ingressToV1beta1(v1, 'extensions/v1beta1');
    const expected = structuredClone(beta) as any;
    expected.spec.rules[0].http.paths[1].backend.servicePort = 0;
    expect(back).to.deep.equal(expected);
    expect((beta.spec as any).backend, 'the input is not changed').to.deep.equal({ serviceName: 'd', servicePort: 'web' });
  });

  it('v1beta1 defaults a missing pathType to ImplementationSpecific, and keeps a given one', () => {
    const obj = { spec: { rules: [{ http: { paths: [{ path: '/' }, { path: '/x', pathType: 'Exact' }] } }] } };
    defaultIngressV1beta1(obj);
    expect(obj.spec.rules[0].http.paths.map((p: any) => p.pathType)).to.deep.equal(['ImplementationSpecific', 'Exact']);
  });

  it('renames v1 field paths and the backend message as Kubernetes answers a v1beta1 request', () => {
    const errs = asV1beta1Errors([
      fieldErrors.invalid('spec.defaultBackend.service.name', 'A', 'bad'),
      fieldErrors.invalid('spec.defaultBackend.service.port.number', 0, 'bad'),
      fieldErrors.invalid('spec.rules[0].http.paths[1].backend.service.port.name', 'x_y', 'bad'),
      fieldErrors.required('spec.rules[0].http.paths[0].backend', 'port name or number is required'),
      fieldErrors.invalid('spec', '[]', 'either `defaultBackend` or `rules` must be specified'),
      fieldErrors.invalid('spec.rules[0].host', '1.2.3.4', 'must be a DNS name, not an IP address'),
    ]);
    expect(errs.map((e) => e.field)).to.deep.equal([
      'spec.backend.serviceName', 'spec.backend.servicePort', 'spec.rules[0].http.paths[1].backend.servicePort',
      'spec.rules[0].http.paths[0].backend', 'spec', 'spec.rules[0].host',
    ]);
    expect(errs[4].message).to.contain('either `backend` or `rules` must be specified');
  });

  it('protobuf: numeric and string servicePorts and a resource backend survive both groups\' messages', () => {
    for (const apiVersion of ['networking.k8s.io/v1beta1', 'extensions/v1beta1']) {
      const ing = {
        apiVersion, kind: 'Ingress', metadata: { name: 'p', namespace: 'ns' },
        spec: {
          backend: { serviceName: 'web', servicePort: 80 },
          rules: [{ host: 'x.example.com', http: { paths: [
            { path: '/a', pathType: 'ImplementationSpecific', backend: { serviceName: 'a', servicePort: 'http' } },
            { path: '/b', pathType: 'Prefix', backend: { resource } },
          ] } }],
        },
      } as ApiObject;
      expect(decodeProtobuf(encodeProtobuf(ing)), apiVersion).to.deep.equal(ing);
    }
  });
});
