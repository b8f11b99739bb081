/**
 * CustomResourceDefinition between apiextensions v1beta1 and v1 (v1beta1-conversion.ts), as
 * Kubernetes converts through its internal type: top-level fields copied into every version and
 * lifted back only when every version has the same value, `version` from the first version, a
 * column's JSONPath, the conversion webhook's fields, preserveUnknownFields; v1beta1's defaults.
 * Every case goes both ways: old -> v1 -> old and v1 -> old -> v1.
 */
import { expect } from 'chai';
import { crdSpecToV1, crdSpecToV1beta1, crdToV1, crdToV1beta1, defaultCrdV1beta1 } from '../../../../../lib/registry/apiextensions/custom-resource-definitions/v1beta1-conversion';

type Obj = Record<string, any>;
const names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
const schemaA = { openAPIV3Schema: { type: 'object', description: 'a' } };
const schemaB = { openAPIV3Schema: { type: 'object', description: 'b' } };
const sub = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };

describe('apiextensions v1beta1 CustomResourceDefinition conversion', () => {
  it('copies the top-level validation, subresources, columns and selectable fields into every version, and lifts them back', () => {
    const beta: Obj = {
      group: 'example.com', version: 'v1', names, scope: 'Namespaced', validation: schemaA, subresources: sub,
      versions: [{ name: 'v1', served: true, storage: true }, { name: 'v2', served: true, storage: false }],
      additionalPrinterColumns: [{ name: 'Size', type: 'string', JSONPath: '.spec.size' }],
      selectableFields: [{ jsonPath: '.spec.size' }],
      conversion: { strategy: 'None' }, preserveUnknownFields: false,
    };
    const v1 = crdSpecToV1(beta);
    const perVersion = { schema: schemaA, subresources: sub, additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }], selectableFields: [{ jsonPath: '.spec.size' }] };
    expect(v1).to.deep.equal({
      group: 'example.com', names, scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, ...perVersion }, { name: 'v2', served: true, storage: false, ...perVersion }],
      conversion: { strategy: 'None' },
    });
    expect(crdSpecToV1beta1(v1)).to.deep.equal(beta);
  });

  it('keeps per-version fields that differ per version, lifting only those that are the same', () => {
    const v1: Obj = {
      group: 'example.com', names, scope: 'Cluster',
      versions: [
        { name: 'v2', served: true, storage: true, schema: schemaA, subresources: sub, additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.a', priority: 1 }] },
        { name: 'v1', served: true, storage: false, deprecated: true, schema: schemaB, subresources: sub },
      ],
      preserveUnknownFields: true,
    };
    const beta = crdSpecToV1beta1(v1);
    expect(beta).to.deep.equal({
      group: 'example.com', version: 'v2', names, scope: 'Cluster', subresources: sub,
      versions: [
        { name: 'v2', served: true, storage: true, schema: schemaA, additionalPrinterColumns: [{ name: 'A', type: 'string', priority: 1, JSONPath: '.a' }] },
        { name: 'v1', served: true, storage: false, deprecated: true, schema: schemaB },
      ],
      preserveUnknownFields: true,
    });
    expect(crdSpecToV1(beta)).to.deep.equal(v1);
  });

  it('a v1beta1 spec with only `version` has one served storage version of that name', () => {
    expect(crdSpecToV1({ group: 'example.com', version: 'v1alpha1', names, scope: 'Namespaced' }).versions)
      .to.deep.equal([{ name: 'v1alpha1', served: true, storage: true }]);
  });

  it('moves the conversion webhook between conversion.webhookClientConfig and conversion.webhook.clientConfig', () => {
    const clientConfig = { url: 'https://convert.example.com/', caBundle: 'Q0E=' };
    const beta = { strategy: 'Webhook', webhookClientConfig: clientConfig, conversionReviewVersions: ['v1', 'v1beta1'] };
    const v1 = crdSpecToV1({ group: 'g.example.com', names, versions: [], conversion: beta }).conversion;
    expect(v1).to.deep.equal({ strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: ['v1', 'v1beta1'] } });
    expect(crdSpecToV1beta1({ versions: [], conversion: v1 }).conversion).to.deep.equal(beta);
  });

  it('reads preserveUnknownFields as set at v1beta1 (false when v1 omits it) and stores true only', () => {
    expect(crdSpecToV1beta1({ versions: [] }).preserveUnknownFields).to.equal(false);
    expect(crdSpecToV1({ versions: [], preserveUnknownFields: false })).to.not.have.property('preserveUnknownFields');
    expect(crdSpecToV1({ versions: [], preserveUnknownFields: true }).preserveUnknownFields).to.equal(true);
  });

  it('relabels the object and leaves metadata and status alone, without changing its argument', () => {
    const obj: Obj = {
      apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', version: 'v1', names, scope: 'Namespaced', validation: schemaA, versions: [{ name: 'v1', served: true, storage: true }], conversion: { strategy: 'None' }, preserveUnknownFields: false },
      status: { storedVersions: ['v1'] },
    };
    const before = structuredClone(obj);
    const v1 = crdToV1(obj);
    expect(obj).to.deep.equal(before);
    expect(v1.apiVersion).to.equal('apiextensions.k8s.io/v1');
    expect(v1.metadata).to.deep.equal(obj.metadata);
    expect(v1.status).to.deep.equal(obj.status);
    expect(crdToV1beta1(v1)).to.deep.equal(obj);
  });

  it('defaults a v1beta1 request as Kubernetes\' v1beta1 SetDefaults', () => {
    const obj: Obj = {
      apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', version: 'v1', names: { plural: 'widgets', kind: 'Widget' }, conversion: { strategy: 'Webhook', webhookClientConfig: { service: { namespace: 'ns', name: 'conv' } } } },
    };
    defaultCrdV1beta1(obj);
    expect(obj.spec).to.deep.equal({
      group: 'example.com', version: 'v1', names, scope: 'Namespaced',
      conversion: { strategy: 'Webhook', webhookClientConfig: { service: { namespace: 'ns', name: 'conv', port: 443 } }, conversionReviewVersions: ['v1beta1'] },
      versions: [{ name: 'v1', served: true, storage: true }],
      preserveUnknownFields: true,
    });
    expect(obj.status).to.deep.equal({ storedVersions: ['v1'] });
    const named: Obj = { spec: { versions: [{ name: 'v2', served: true, storage: true }], names: { kind: 'X' } } };
    defaultCrdV1beta1(named);
    expect(named.spec.version).to.equal('v2');
    expect(named.spec.conversion).to.deep.equal({ strategy: 'None' });
  });
});
