/**
 * The NonStructuralSchema condition (nonstructural-schema-controller.ts calculateCondition): none
 * for a structural CRD that prunes; Violations with Kubernetes' aggregated message for
 * preserveUnknownFields and for each version's structural errors; StructuralError when a
 * schema cannot be read.
 */
import { expect } from 'chai';
import { nonStructuralCondition } from '../../../../lib/apiextensions/controllers/nonstructural-schema-controller';

type Obj = Record<string, any>;
const crd = (spec: Obj): Obj => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x.example.com' }, spec });
const version = (name: string, openAPIV3Schema?: unknown): Obj => ({ name, served: true, storage: name === 'v1', ...(openAPIV3Schema ? { schema: { openAPIV3Schema } } : {}) });

describe('NonStructuralSchema condition', () => {
  it('is absent for a structural CRD that prunes', () => {
    expect(nonStructuralCondition(crd({ versions: [version('v1', { type: 'object' })] }))).to.equal(undefined);
  });

  it('names preserveUnknownFields alone as one message', () => {
    expect(nonStructuralCondition(crd({ preserveUnknownFields: true, versions: [version('v1')] }))).to.deep.equal({
      status: 'True', reason: 'Violations', message: 'spec.preserveUnknownFields: Invalid value: true: must be false',
    });
  });

  it('aggregates every violation of every version in brackets, with per-version paths', () => {
    const cond = nonStructuralCondition(crd({
      preserveUnknownFields: true,
      versions: [version('v1', { type: 'object' }), version('v2', { properties: { spec: { type: 'object' } } })],
    }));
    expect(cond).to.include({ status: 'True', reason: 'Violations' });
    expect(cond!.message).to.equal('[spec.preserveUnknownFields: Invalid value: true: must be false, '
      + 'spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root]');
  });

  it('is Unknown with StructuralError when a schema cannot be read', () => {
    expect(nonStructuralCondition(crd({ versions: [version('v1', { type: 'object', items: [{ type: 'string' }] })] }))).to.deep.equal({
      status: 'Unknown', reason: 'StructuralError',
      message: "failed to check validation schema for version v1: OpenAPIV3Schema 'items' must be a schema, but is an array",
    });
  });
});
