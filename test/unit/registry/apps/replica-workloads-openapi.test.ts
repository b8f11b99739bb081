/**
 * OpenAPI of apps/v1 Deployment and ReplicaSet: their structs are written under Kubernetes' Go
 * definition names (io.k8s.api.apps.v1.DeploymentSpec...), and the fields that hold a shared or
 * named type refer to it with the field's own description and patch strategy beside the
 * reference (spec.template -> core/v1 PodTemplateSpec, strategy with retainKeys), as
 * kube-apiserver's /openapi/v3/apis/apps/v1 has them; clients (kubectl explain, generators)
 * look types up by those names.
 */
import { expect } from 'chai';
import { buildOpenApiV3 } from '../../../../lib/api/openapi/v3';
import { builtinResources } from '../../../../lib/registry/builtin';
import { flavors } from '../../../../lib/naming';

type Json = Record<string, any>;
const ref = (name: string) => [{ $ref: `#/components/schemas/${name}` }];

describe('Deployment and ReplicaSet OpenAPI names', () => {
  const naming = flavors.kubernetes;
  const schemas: Json = (buildOpenApiV3({ group: 'apps', version: 'v1' }, builtinResources(naming), naming, { title: 't', version: 'v' }) as Json).components.schemas;

  it('writes each struct under its Go definition name', () => {
    for (const name of ['Deployment', 'DeploymentList', 'DeploymentSpec', 'DeploymentStatus', 'DeploymentStrategy', 'DeploymentCondition',
      'RollingUpdateDeployment', 'ReplicaSet', 'ReplicaSetList', 'ReplicaSetSpec', 'ReplicaSetStatus', 'ReplicaSetCondition']) {
      expect(schemas, name).to.have.property(`io.k8s.api.apps.v1.${name}`);
    }
    expect(schemas).to.have.property('io.k8s.api.autoscaling.v1.Scale');
  });

  it('refers to the template, selector and strategy types with the field\'s own keys', () => {
    const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties;
    expect(spec.template.allOf).to.deep.equal(ref('io.k8s.api.core.v1.PodTemplateSpec'));
    expect(spec.selector.allOf).to.deep.equal(ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector'));
    expect(spec.strategy).to.deep.include({ allOf: ref('io.k8s.api.apps.v1.DeploymentStrategy'), 'x-kubernetes-patch-strategy': 'retainKeys' });
    expect(schemas['io.k8s.api.apps.v1.ReplicaSetSpec'].properties.template.allOf).to.deep.equal(ref('io.k8s.api.core.v1.PodTemplateSpec'));
    const conditions = schemas['io.k8s.api.apps.v1.DeploymentStatus'].properties.conditions;
    expect(conditions).to.deep.include({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-patch-merge-key': 'type' });
  });
});
