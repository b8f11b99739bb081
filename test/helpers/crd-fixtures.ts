/**
 * Sample CustomResourceDefinitions for tests: `cronTabCrd(opts)` is Kubernetes' documentation
 * example (stable.example.com CronTab, `crontabs`, short name `ct`), accepted and Established,
 * with options for scope, versions, schema, subresources, printer columns and selectable fields.
 */
import { ApiObject } from '../../lib/scheme/types';

/** Options of cronTabCrd; every version gets the same schema, subresources, columns and fields unless given per version. */
export interface CronTabOptions {
  group?: string;
  scope?: 'Namespaced' | 'Cluster';
  /** Version names (default ['v1']); the first is the storage version unless `storage` says otherwise. */
  versions?: string[];
  storage?: string;
  /** Versions marked deprecated, with an optional custom warning. */
  deprecated?: Record<string, string | undefined>;
  /** Versions listed but not served. */
  notServed?: string[];
  /** The openAPIV3Schema (default: cronTabSchema()). */
  schema?: Record<string, unknown>;
  /** Per-version schemas, overriding `schema`. */
  schemas?: Record<string, Record<string, unknown>>;
  status?: boolean;
  scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string } | boolean;
  printerColumns?: Array<Record<string, unknown>>;
  selectableFields?: string[];
  /** Mark the CRD as being deleted. */
  terminating?: boolean;
}

/** Kubernetes' CronTab example schema, with replicas, a selector, defaults and a status. */
export function cronTabSchema(): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
          image: { type: 'string' },
          replicas: { type: 'integer', minimum: 1, maximum: 10 },
          color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'red' },
          paused: { type: 'boolean' },
          selector: { type: 'string' },
          ports: {
            type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
        },
      },
      status: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' }, phase: { type: 'string' } },
      },
    },
  };
}

/** An accepted, Established CronTab CRD built from `opts`. */
export function cronTabCrd(opts: CronTabOptions = {}): ApiObject {
  const group = opts.group ?? 'stable.example.com';
  const versions = opts.versions ?? ['v1'];
  const storage = opts.storage ?? versions[0];
  const subresources: Record<string, unknown> = {};
  if (opts.status) subresources.status = {};
  if (opts.scale) {
    subresources.scale = opts.scale === true
      ? { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' }
      : opts.scale;
  }
  const names = { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `crontabs.${group}`, uid: '3c1b0a7e-5f0c-4e8a-9d5e-000000000001', generation: 1, resourceVersion: '10',
      creationTimestamp: '2024-01-01T00:00:00Z',
      ...(opts.terminating ? { deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] } : {}),
    },
    spec: {
      group,
      names,
      scope: opts.scope ?? 'Namespaced',
      versions: versions.map((name) => ({
        name,
        served: !(opts.notServed ?? []).includes(name),
        storage: name === storage,
        ...(opts.deprecated && name in opts.deprecated
          ? { deprecated: true, ...(opts.deprecated[name] !== undefined ? { deprecationWarning: opts.deprecated[name] } : {}) } : {}),
        schema: { openAPIV3Schema: opts.schemas?.[name] ?? opts.schema ?? cronTabSchema() },
        ...(Object.keys(subresources).length ? { subresources } : {}),
        ...(opts.printerColumns ? { additionalPrinterColumns: opts.printerColumns } : {}),
        ...(opts.selectableFields ? { selectableFields: opts.selectableFields.map((jsonPath) => ({ jsonPath })) } : {}),
      })),
      conversion: { strategy: 'None' },
    },
    status: {
      acceptedNames: names,
      storedVersions: [storage],
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: '2024-01-01T00:00:00Z' },
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: '2024-01-01T00:00:00Z' },
        ...(opts.terminating ? [{ type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon', lastTransitionTime: '2024-01-02T00:00:00Z' }] : []),
      ],
    },
  };
}

/** A CronTab object of `version` (default v1) in `namespace`. */
export function cronTab(name: string, spec: Record<string, unknown> = {}, extra: Partial<ApiObject> = {}, version = 'v1'): ApiObject {
  return { apiVersion: `stable.example.com/${version}`, kind: 'CronTab', metadata: { name, namespace: 'default' }, spec, ...extra };
}
