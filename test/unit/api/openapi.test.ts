import { expect } from 'chai';
import { buildOpenApiV3, buildOpenApiV3Index, groupVersionKey } from '../../../lib/api/openapi/v3';
import { buildOpenApiV2 } from '../../../lib/api/openapi/v2';
import { definitionName, groupCamel } from '../../../lib/api/openapi/schema-names';
import { OpenApiDocuments } from '../../../lib/api/openapi/documents';
import { patchTypesForSchema } from '../../../lib/api/handlers/patch';
import { flavors, Naming } from '../../../lib/naming';
import { builtinResources } from '../../../lib/registry/builtin';
import { configMapSchema } from '../../../lib/registry/core/configmaps/schema';
import { ResourceDef } from '../../../lib/scheme/types';

const info = { title: 'Test', version: 'v1.32.0-test' };
const orch = flavors.orch;
const kube = flavors.kubernetes;
const core = { group: '', version: 'v1' };

/** A cluster-scoped kind of a named group whose schema has no fields: no strategic merge patch. */
function storageClasses(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'StorageClass', listKind: 'StorageClassList', resource: 'storageclasses',
    singular: 'storageclass', namespaced: false, shortNames: ['sc'], categories: [], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], strategy: {}, deleteReturnsStatus: false, nameValidation: 'dns-subdomain',
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  };
}

const resources = (naming: Naming) => [...builtinResources(naming), storageClasses(naming)];

type Json = Record<string, any>;

/** Every `$ref` in `doc`, with the path where it occurs. */
function refs(doc: unknown, at = '#'): [string, string][] {
  if (!doc || typeof doc !== 'object') return [];
  if (Array.isArray(doc)) return doc.flatMap((v, i) => refs(v, `${at}/${i}`));
  // A `$ref` whose value is a schema is a property of that name (JSONSchemaProps has one).
  return Object.entries(doc as Json).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [[at, v] as [string, string]] : refs(v, `${at}/${k}`)));
}

/** Every PATCH operation of a v3 or v2 document, with its path. */
function patchOperations(doc: Json): [string, Json][] {
  return Object.entries(doc.paths as Json).filter(([, item]) => item.patch).map(([p, item]) => [p, item.patch]);
}

describe('OpenAPI documents', () => {
  const v1: Json = buildOpenApiV3(core, resources(orch), orch, info);
  const schemas = v1.components as Json;
  const configMap = schemas.schemas['io.k8s.api.core.v1.ConfigMap'];

  describe('buildOpenApiV3', () => {
    it('is an OpenAPI 3.0 document with the given info', () => {
      expect(v1.openapi).to.equal('3.0.0');
      expect(v1.info).to.deep.equal(info);
    });

    it('defines every kind and its List under Kubernetes\' names, with the GVK list in both prefixes (orch flavor)', () => {
      for (const kind of ['ConfigMap', 'Secret', 'Namespace']) {
        const s = schemas.schemas[`io.k8s.api.core.v1.${kind}`];
        expect(s['x-kubernetes-group-version-kind']).to.deep.equal([{ group: '', kind, version: 'v1' }]);
        expect(s['x-orch-group-version-kind']).to.deep.equal([{ group: '', kind, version: 'v1' }]);
        const list = schemas.schemas[`io.k8s.api.core.v1.${kind}List`];
        expect(list['x-kubernetes-group-version-kind']).to.deep.equal([{ group: '', kind: `${kind}List`, version: 'v1' }]);
        expect(list.required).to.deep.equal(['items']);
        expect(list.properties.items.items).to.deep.equal({ allOf: [{ $ref: `#/components/schemas/io.k8s.api.core.v1.${kind}` }], default: {} });
      }
    });

    it('writes the kind from the schema the server validates with, metadata as a reference to ObjectMeta', () => {
      expect(Object.keys(configMap.properties)).to.have.members(Object.keys(configMapSchema.properties!));
      expect(configMap.description).to.equal(configMapSchema.description);
      expect(configMap.properties.data).to.deep.equal({ description: configMapSchema.properties!.data.description, type: 'object', additionalProperties: { type: 'string' } });
      expect(configMap.properties.binaryData.additionalProperties).to.deep.equal({ type: 'string', format: 'byte' });
      expect(configMap.properties.metadata.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
      expect(configMap.properties.metadata.default).to.deep.equal({});
    });

    it('carries the list and map markers, in both prefixes in the orch flavor', () => {
      const meta = schemas.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
      for (const prefix of ['x-kubernetes-', 'x-orch-']) {
        expect(meta.ownerReferences).to.include({ [`${prefix}list-type`]: 'map', [`${prefix}patch-merge-key`]: 'uid', [`${prefix}patch-strategy`]: 'merge' });
        expect(meta.ownerReferences[`${prefix}list-map-keys`]).to.deep.equal(['uid']);
        expect(meta.finalizers).to.include({ [`${prefix}list-type`]: 'set', [`${prefix}patch-strategy`]: 'merge' });
        expect(meta.managedFields[`${prefix}list-type`]).to.equal('atomic');
        const ownerRef = schemas.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference'];
        expect(ownerRef[`${prefix}map-type`]).to.equal('atomic');
        const conditions = schemas.schemas['io.k8s.api.core.v1.NamespaceStatus'].properties.conditions;
        expect(conditions[`${prefix}list-map-keys`]).to.deep.equal(['type']);
      }
      expect(meta.ownerReferences.items).to.deep.equal({ allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference' }], default: {} });
      expect(meta.creationTimestamp.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time' }]);
    });

    it('resolves every $ref within the document', () => {
      const all = refs(v1);
      expect(all.length).to.be.greaterThan(50);
      for (const [at, ref] of all) {
        expect(ref, at).to.match(/^#\/components\/schemas\//);
        expect(schemas.schemas, `${at} -> ${ref}`).to.have.property(ref.slice('#/components/schemas/'.length));
      }
    });

    it('gives every PATCH operation its kind, the served patch content types and a fieldValidation query parameter', () => {
      const patches = patchOperations(v1);
      expect(patches.map(([p]) => p)).to.have.members([
        '/api/v1/namespaces/{namespace}/configmaps/{name}', '/api/v1/namespaces/{namespace}/secrets/{name}',
        '/api/v1/namespaces/{name}', '/api/v1/namespaces/{name}/status',
        '/api/v1/namespaces/{namespace}/pods/{name}', '/api/v1/namespaces/{namespace}/pods/{name}/status',
        '/api/v1/namespaces/{namespace}/podtemplates/{name}', '/api/v1/namespaces/{namespace}/endpoints/{name}',
        '/api/v1/namespaces/{namespace}/limitranges/{name}',
        '/api/v1/namespaces/{namespace}/replicationcontrollers/{name}', '/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/status',
        '/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale',
        '/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}', '/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}/status',
        '/api/v1/persistentvolumes/{name}', '/api/v1/persistentvolumes/{name}/status',
        '/api/v1/namespaces/{namespace}/serviceaccounts/{name}', '/api/v1/namespaces/{namespace}/events/{name}',
        '/api/v1/nodes/{name}', '/api/v1/nodes/{name}/status', '/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers',
        '/api/v1/namespaces/{namespace}/services/{name}', '/api/v1/namespaces/{namespace}/services/{name}/status',
        '/api/v1/namespaces/{namespace}/resourcequotas/{name}', '/api/v1/namespaces/{namespace}/resourcequotas/{name}/status',
      ]);
      for (const [p, op] of patches) {
        expect(op['x-kubernetes-action'], p).to.equal('patch');
        // A /scale patches an autoscaling/v1 Scale, as Kubernetes' document says.
        if (p.endsWith('/scale')) {
          expect(op['x-kubernetes-group-version-kind'], p).to.deep.equal({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
          continue;
        }
        const kind = op['x-kubernetes-group-version-kind'].kind;
        expect(op['x-kubernetes-group-version-kind'], p).to.deep.equal({ group: '', kind, version: 'v1' });
        expect(op['x-orch-group-version-kind'], p).to.deep.equal({ group: '', kind, version: 'v1' });
        const def = builtinResources(orch).find((r) => r.kind === kind)!;
        expect(Object.keys(op.requestBody.content), p).to.deep.equal(patchTypesForSchema(def.schema));
        expect(op.parameters.filter((x: Json) => x.name === 'fieldValidation'), p).to.deep.equal([
          { description: op.parameters.find((x: Json) => x.name === 'fieldValidation').description, in: 'query', name: 'fieldValidation', schema: { type: 'string', uniqueItems: true } },
        ]);
        expect(op.parameters.map((x: Json) => x.name), p).to.include.members(['dryRun', 'fieldManager', 'force']);
      }
      const cm = v1.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
      expect(Object.keys(cm.requestBody.content)).to.deep.equal([
        'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
      ]);
    });

    it('lists strategic merge patch only for kinds whose schema supports it', () => {
      const storage: Json = buildOpenApiV3({ group: 'storage.orch.io', version: 'v1' }, resources(orch), orch, info);
      const op = storage.paths['/apis/storage.orch.io/v1/storageclasses/{name}'].patch;
      expect(Object.keys(op.requestBody.content)).to.deep.equal(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      expect(op.operationId).to.equal('patchStorageV1StorageClass');
      expect(op.tags).to.deep.equal(['storage_v1']);
      expect(storage.components.schemas['io.k8s.api.storage.v1.StorageClass']['x-kubernetes-group-version-kind'])
        .to.deep.equal([{ group: 'storage.orch.io', kind: 'StorageClass', version: 'v1' }]);
    });

    it('names operations and paths as kube-apiserver does, for namespaced and cluster-scoped kinds and subresources', () => {
      const ids = (p: string) => Object.fromEntries(Object.entries(v1.paths[p] as Json).filter(([m]) => m !== 'parameters').map(([m, o]) => [m, o.operationId]));
      expect(ids('/api/v1/namespaces/{namespace}/configmaps')).to.deep.equal({
        get: 'listCoreV1NamespacedConfigMap', post: 'createCoreV1NamespacedConfigMap', delete: 'deleteCoreV1CollectionNamespacedConfigMap',
      });
      expect(ids('/api/v1/namespaces/{namespace}/configmaps/{name}')).to.deep.equal({
        get: 'readCoreV1NamespacedConfigMap', put: 'replaceCoreV1NamespacedConfigMap', patch: 'patchCoreV1NamespacedConfigMap', delete: 'deleteCoreV1NamespacedConfigMap',
      });
      expect(ids('/api/v1/configmaps')).to.deep.equal({ get: 'listCoreV1ConfigMapForAllNamespaces' });
      expect(ids('/api/v1/namespaces')).to.deep.equal({ get: 'listCoreV1Namespace', post: 'createCoreV1Namespace' });
      expect(ids('/api/v1/namespaces/{name}/status')).to.deep.equal({ get: 'readCoreV1NamespaceStatus', put: 'replaceCoreV1NamespaceStatus', patch: 'patchCoreV1NamespaceStatus' });
      expect(ids('/api/v1/namespaces/{name}/finalize')).to.deep.equal({ put: 'replaceCoreV1NamespaceFinalize' });
      expect(v1.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].parameters.map((p: Json) => p.name)).to.deep.equal(['name', 'namespace']);
      expect(v1.paths['/api/v1/namespaces/{namespace}/configmaps'].get.parameters.map((p: Json) => p.name)).to.include.members(['watch', 'labelSelector', 'limit', 'continue', 'resourceVersion']);
    });

    it('answers DELETE with Status or the object as the kind does', () => {
      const status = { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status' };
      expect(v1.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].delete.responses['200'].content['application/json'].schema).to.deep.equal(status);
      expect(v1.paths['/api/v1/namespaces/{name}'].delete.responses['200'].content['application/json'].schema)
        .to.deep.equal({ $ref: '#/components/schemas/io.k8s.api.core.v1.Namespace' });
    });

    it('makes DeleteOptions and WatchEvent kinds of every served group/version', () => {
      const gvks = schemas.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']['x-kubernetes-group-version-kind'];
      expect(gvks).to.deep.equal([
        { group: '', kind: 'DeleteOptions', version: 'v1' },
        { group: 'admissionregistration.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'admissionregistration.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'apiextensions.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'apiregistration.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'apps', kind: 'DeleteOptions', version: 'v1' },
        { group: 'authentication.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'authentication.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'authorization.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'authorization.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'autoscaling', kind: 'DeleteOptions', version: 'v2' },
        { group: 'autoscaling', kind: 'DeleteOptions', version: 'v1' },
        { group: 'batch', kind: 'DeleteOptions', version: 'v1' },
        { group: 'batch', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'certificates.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'certificates.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'coordination.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'coordination.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'discovery.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'discovery.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'events.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'extensions', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'flowcontrol.apiserver.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'networking.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'networking.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'node.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'node.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'policy', kind: 'DeleteOptions', version: 'v1' },
        { group: 'policy', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'rbac.authorization.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'rbac.authorization.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'scheduling.orch.io', kind: 'DeleteOptions', version: 'v1' },
        { group: 'scheduling.orch.io', kind: 'DeleteOptions', version: 'v1beta1' },
        { group: 'storage.orch.io', kind: 'DeleteOptions', version: 'v1' },
      ]);
    });

    it('writes only x-kubernetes-* extensions in the kubernetes flavor', () => {
      const doc: Json = buildOpenApiV3(core, resources(kube), kube, info);
      const text = JSON.stringify(doc);
      expect(text).not.to.include('x-orch-');
      expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch['x-kubernetes-group-version-kind'])
        .to.deep.equal({ group: '', kind: 'ConfigMap', version: 'v1' });
    });

    it('is deterministic', () => {
      expect(JSON.stringify(buildOpenApiV3(core, resources(orch), orch, info))).to.equal(JSON.stringify(v1));
    });

    it('writes a shared Go type once, under its own name, and refers to it from every field that holds one', () => {
      const all = schemas.schemas as Json;
      // PodTemplate.template is a PodTemplateSpec (not a `PodTemplateTemplate` of its own), whose spec is the PodSpec.
      expect(all['io.k8s.api.core.v1.PodTemplateTemplate']).to.equal(undefined);
      const template = all['io.k8s.api.core.v1.PodTemplate'].properties.template;
      expect(template.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec' }]);
      expect(template.description).to.match(/^Template defines the pods/);
      expect(all['io.k8s.api.core.v1.PodTemplateSpec'].properties.spec.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }]);
      expect(all['io.k8s.api.core.v1.Pod'].properties.spec.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }]);
      expect(all['io.k8s.api.core.v1.PodSpec'].required).to.deep.equal(['containers']);
      // A field of a named type with its own patch strategy keeps it beside the reference; the
      // group/version's document carries the type's definition though the type is meta's.
      const policy: Json = buildOpenApiV3({ group: 'policy', version: 'v1' }, resources(kube), kube, info);
      const selector = policy.components.schemas['io.k8s.api.policy.v1.PodDisruptionBudgetSpec'].properties.selector;
      expect(selector.allOf).to.deep.equal([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' }]);
      expect(selector['x-kubernetes-patch-strategy']).to.equal('replace');
      expect(policy.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']['x-kubernetes-map-type']).to.equal('atomic');
      for (const doc of [v1, policy]) {
        const names = new Set(Object.keys(doc.components.schemas).map((n) => `#/components/schemas/${n}`));
        expect(refs(doc).filter(([, r]) => !names.has(r))).to.deep.equal([]);
      }
    });
  });

  describe('buildOpenApiV3Index', () => {
    it('lists each document at /openapi/v3/<key>?hash=<hash>', () => {
      const index = buildOpenApiV3Index(new Map([['apis/storage.k8s.io/v1', 'BB'], ['api/v1', 'AA']]));
      expect(index).to.deep.equal({
        paths: {
          'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=AA' },
          'apis/storage.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/storage.k8s.io/v1?hash=BB' },
        },
      });
      expect(groupVersionKey({ group: 'storage.k8s.io', version: 'v1' })).to.equal('apis/storage.k8s.io/v1');
    });
  });

  describe('OpenApiDocuments', () => {
    it('hashes each document with SHA-512 (upper-case hex) and rebuilds when the served resources change', () => {
      // The core group only, so that adding a storage group below changes the index.
      let served = builtinResources(orch).filter((r) => r.group === '');
      const docs = new OpenApiDocuments(() => served, orch, info);
      const first = docs.index();
      const index = JSON.parse(first.body.toString());
      expect(Object.keys(index.paths)).to.deep.equal(['api/v1']);
      const v1Doc = docs.groupVersion('api/v1')!;
      expect(v1Doc.hash).to.match(/^[0-9A-F]{128}$/);
      expect(index.paths['api/v1'].serverRelativeURL).to.equal(`/openapi/v3/api/v1?hash=${v1Doc.hash}`);
      expect(docs.index()).to.equal(first);

      served = [...served, storageClasses(orch)];
      const second = JSON.parse(docs.index().body.toString());
      expect(Object.keys(second.paths)).to.deep.equal(['api/v1', 'apis/storage.orch.io/v1']);
      // DeleteOptions now names the new group/version too, so the core document changed.
      expect(second.paths['api/v1'].serverRelativeURL).not.to.equal(index.paths['api/v1'].serverRelativeURL);
      expect(docs.groupVersion('apis/nope/v1')).to.equal(undefined);
    });
  });

  describe('buildOpenApiV2', () => {
    const v2: Json = buildOpenApiV2(resources(orch), orch, info);

    it('is Swagger 2.0 with the same definitions and every served path', () => {
      expect(v2.swagger).to.equal('2.0');
      const definitions = v2.definitions as Json;
      expect(Object.keys(definitions)).to.include.members([...Object.keys(schemas.schemas), 'io.k8s.api.storage.v1.StorageClass']);
      expect(Object.keys(v2.paths as Json)).to.include.members([...Object.keys(v1.paths), '/apis/storage.orch.io/v1/storageclasses/{name}']);
      expect(definitions['io.k8s.api.core.v1.ConfigMap'].properties.metadata)
        .to.deep.equal({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: configMap.properties.metadata.description });
    });

    it('resolves every $ref within the document', () => {
      for (const [at, ref] of refs(v2)) {
        expect(ref, at).to.match(/^#\/definitions\//);
        expect(v2.definitions, `${at} -> ${ref}`).to.have.property(ref.slice('#/definitions/'.length));
      }
    });

    it('gives PATCH operations consumes, a body parameter and fieldValidation', () => {
      for (const [p, op] of patchOperations(v2)) {
        expect(op['x-kubernetes-group-version-kind'], p).to.have.keys('group', 'kind', 'version');
        expect(op.consumes, p).to.include('application/apply-patch+yaml');
        expect(op.parameters[0], p).to.deep.equal({ in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
        expect(op.parameters.map((x: Json) => x.name), p).to.include('fieldValidation');
      }
    });
  });

  describe('schema names', () => {
    it('spells definitions as Kubernetes, whatever the flavor\'s domain', () => {
      expect(definitionName('', 'v1', 'ConfigMap')).to.equal('io.k8s.api.core.v1.ConfigMap');
      expect(definitionName('storage.k8s.io', 'v1', 'CSIDriver')).to.equal('io.k8s.api.storage.v1.CSIDriver');
      expect(definitionName('storage.orch.io', 'v1', 'CSIDriver')).to.equal('io.k8s.api.storage.v1.CSIDriver');
      expect(definitionName('rbac.authorization.k8s.io', 'v1', 'Role')).to.equal('io.k8s.api.rbac.v1.Role');
      expect(definitionName('apps', 'v1', 'Deployment')).to.equal('io.k8s.api.apps.v1.Deployment');
      expect(definitionName('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'))
        .to.equal('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
      expect(definitionName('stable.example.com', 'v1', 'CronTab')).to.equal('com.example.stable.v1.CronTab');
    });

    it('spells groups in operation ids as Kubernetes', () => {
      expect(groupCamel('')).to.equal('Core');
      expect(groupCamel('rbac.authorization.k8s.io')).to.equal('RbacAuthorization');
      expect(groupCamel('coordination.orch.io')).to.equal('Coordination');
      expect(groupCamel('stable.example.com')).to.equal('StableExampleCom');
    });
  });
});
