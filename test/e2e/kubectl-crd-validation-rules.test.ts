/**
 * The real kubectl (1.32) with a kubebuilder-style CRD carrying CEL validation rules (what
 * `+kubebuilder:validation:XValidation` markers generate): `self.minReplicas <= self.maxReplicas`
 * on the spec and `self == oldSelf` ("Value is immutable") on a field. kubectl applies the CRD,
 * then objects that pass and fail; the error text kubectl prints is checked as kube-apiserver
 * 1.32 gives it, and a refused change leaves the object as it was.
 */
import { expect } from 'chai';
import { KubectlServer, useKubectlServer } from '../helpers/e2e-server';

type Obj = Record<string, any>;
const GROUP = 'autoscale.example.com';
const CRD_NAME = `scalers.${GROUP}`;

/** The CRD controller-gen writes for a Scaler type with two XValidation markers. */
function scalerCrd(): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME, annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.4' } },
    spec: {
      group: GROUP, scope: 'Namespaced',
      names: { kind: 'Scaler', listKind: 'ScalerList', plural: 'scalers', singular: 'scaler' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            description: 'Scaler is the Schema for the scalers API.', type: 'object',
            properties: {
              apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' },
              spec: {
                type: 'object', required: ['minReplicas', 'maxReplicas', 'target'],
                properties: {
                  minReplicas: { type: 'integer', format: 'int32', minimum: 0 },
                  maxReplicas: { type: 'integer', format: 'int32' },
                  target: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
                },
                'x-kubernetes-validations': [{ rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must be less than or equal to maxReplicas' }],
              },
              status: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
            },
          },
        },
      }],
    },
  };
}

const scaler = (name: string, spec: Obj): Obj => ({ apiVersion: `${GROUP}/v1`, kind: 'Scaler', metadata: { name, namespace: 'default' }, spec });

describe('kubectl with a kubebuilder-style CRD carrying CEL validation rules', function () {
  this.timeout(120_000);
  const e2e: KubectlServer = useKubectlServer('kubectl-crd-rules', ['--flavor=kubernetes']);

  before(async () => {
    const res = await e2e.ok(['apply', '-f', e2e.manifest('crd.yaml', scalerCrd())]);
    expect(res.stdout.trim()).to.equal(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} created`);
    await e2e.ok(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=10s']);
  });

  it('applies an object the rules hold for, and refuses one they do not with the text kube-apiserver gives', async () => {
    const ok = await e2e.ok(['apply', '-f', e2e.manifest('ok.yaml', scaler('web', { minReplicas: 1, maxReplicas: 3, target: 'deploy/web' }))]);
    expect(ok.stdout.trim()).to.equal(`scaler.${GROUP}/web created`);

    const bad = await e2e.fails(['apply', '-f', e2e.manifest('bad.yaml', scaler('inverted', { minReplicas: 5, maxReplicas: 2, target: 'deploy/x' }))]);
    expect(bad.stderr).to.include('The Scaler "inverted" is invalid: spec: Invalid value: "object": minReplicas must be less than or equal to maxReplicas');
    const gone = await e2e.fails(['get', 'scaler', 'inverted']);
    expect(gone.stderr).to.include(`Error from server (NotFound): scalers.${GROUP} "inverted" not found`);
  });

  it('refuses a change of an immutable field (a transition rule) and accepts other changes', async () => {
    const changed = await e2e.fails(['apply', '-f', e2e.manifest('move.yaml', scaler('web', { minReplicas: 1, maxReplicas: 3, target: 'deploy/other' }))]);
    expect(changed.stderr).to.include('The Scaler "web" is invalid: spec.target: Invalid value: "string": Value is immutable');

    const both = await e2e.fails(['apply', '-f', e2e.manifest('both.yaml', scaler('web', { minReplicas: 4, maxReplicas: 3, target: 'deploy/other' }))]);
    expect(both.stderr).to.include('The Scaler "web" is invalid: \n* spec: Invalid value: "object": minReplicas must be less than or equal to maxReplicas\n* spec.target: Invalid value: "string": Value is immutable');

    const scaled = await e2e.ok(['apply', '-f', e2e.manifest('scale.yaml', scaler('web', { minReplicas: 2, maxReplicas: 5, target: 'deploy/web' }))]);
    expect(scaled.stdout.trim()).to.equal(`scaler.${GROUP}/web configured`);
    const got = JSON.parse((await e2e.ok(['get', 'scaler', 'web', '-o', 'json'])).stdout);
    expect(got.spec).to.deep.equal({ minReplicas: 2, maxReplicas: 5, target: 'deploy/web' });
  });

  it('refuses a CRD whose rule does not compile, naming the rule', async () => {
    const crd = scalerCrd();
    crd.metadata.name = `brokens.${GROUP}`;
    Object.assign(crd.spec.names, { kind: 'Broken', listKind: 'BrokenList', plural: 'brokens', singular: 'broken' });
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.minReplicas <=' }];
    const res = await e2e.fails(['apply', '-f', e2e.manifest('broken.yaml', crd)]);
    expect(res.stderr).to.include(`The CustomResourceDefinition "brokens.${GROUP}" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.minReplicas <=", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR:`);
  });
});
