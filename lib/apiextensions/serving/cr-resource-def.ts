/**
 * The custom-resource def factory (design 5, WP4): a CRD becomes one ResourceDef per served
 * version, named from `status.acceptedNames` (as Kubernetes serves the accepted names, not the
 * requested ones), with the version's schema (pruning, defaulting, validation, the server Schema
 * for OpenAPI, field validation and server-side apply), strategy, Table, selectable fields,
 * deprecation, `/status` and `/scale`. Objects are JSON only and refuse strategic merge patches.
 * Every version reads and writes through the CRD's converter (cr-versioning.ts).
 */
import { ApiObject, ResourceDef, SubresourceDef } from '../../scheme/types';
import { CustomHandlers } from '../../api/resource-handler';
import { CrdSpec, CrdVersion, crdSpec, crdStatus, crdVersions, storageVersionOf } from '../../registry/apiextensions/custom-resource-definitions/view';
import { isTrue } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { toStructural } from '../../scheme/structural/structural';
import { CrSchemaRuntime } from '../../scheme/structural/runtime';
import { CrServing, CrServingDeps, CrServingFactory } from './types';
import { crStrategy } from './cr-strategy';
import { crStatusSubresource } from './cr-status';
import { crScaleHandlers } from './cr-scale-handlers';
import { crTableColumns } from './cr-table';
import { crSelectableFields } from './cr-selectable-fields';
import { crDeprecation } from './cr-deprecation';
import { makeCrReadPath, setCrReadPath } from './cr-read';
import { crVersioning } from './cr-versioning';
import { converterFor } from '../conversion/converter';
import { Converter } from '../conversion/converter-interface';

/** The verbs of a custom resource, in Kubernetes' discovery order. */
export const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
/**
 * The verbs discovery lists while the CRD terminates. The def keeps all verbs (finalizers must
 * still be removable by update/patch); creates are refused by the strategy.
 */
export const CR_TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'];

// A version without a schema keeps everything (only possible for CRDs that were never v1-validated).
const SCHEMALESS = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** Whether the CRD is being deleted (deletionTimestamp set or Terminating=True). */
export function crdTerminating(crd: ApiObject): boolean {
  return !!crd.metadata?.deletionTimestamp || isTrue(crd, 'Terminating');
}

// Kubernetes keys objects by spec.names.plural (immutable), whatever names are accepted.
const specPlural = (spec: CrdSpec): string | undefined => {
  const p = isObject(spec.names) ? spec.names.plural : undefined;
  return typeof p === 'string' && p ? p : undefined;
};

interface Names { plural: string; singular: string; kind: string; listKind: string; shortNames: string[]; categories: string[] }

function acceptedNames(crd: ApiObject): Names {
  const n = crdStatus(crd).acceptedNames ?? {};
  const name = crd.metadata?.name;
  for (const [field, what] of [['plural', 'resource'], ['singular', 'resource'], ['kind', 'kind'], ['listKind', 'list kind']] as const) {
    if (typeof n[field] !== 'string' || !n[field]) {
      throw new Error(`CustomResourceDefinition ${name} has unexpected empty status.acceptedNames.${field}: the server could not properly serve the ${what}`);
    }
  }
  return {
    plural: n.plural as string, singular: n.singular as string, kind: n.kind as string, listKind: n.listKind as string,
    shortNames: strings(n.shortNames), categories: strings(n.categories),
  };
}

function versionDef(crd: ApiObject, spec: CrdSpec, v: CrdVersion, names: Names, storageVersion: string, deps: CrServingDeps,
  terminating: boolean, converter: Converter): { def: ResourceDef; handlers?: CustomHandlers } {
  const group = String(spec.group);
  const version = String(v.name);
  const schemaJson = isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : SCHEMALESS;
  // A CRD that preserves unknown fields (created at v1beta1) is not pruned.
  const runtime = new CrSchemaRuntime(toStructural(schemaJson), { pruning: spec.preserveUnknownFields !== true });
  const sub = isObject(v.subresources) ? v.subresources : {};
  const statusEnabled = isObject(sub.status);
  const scale = isObject(sub.scale) ? sub.scale : undefined;
  const readPath = makeCrReadPath(runtime, `${group}/${version}`, `${group}/${storageVersion}`);
  const strategy = crStrategy({
    group, version, kind: names.kind, plural: names.plural, runtime, statusEnabled, scale,
    selectable: crSelectableFields(Array.isArray(v.selectableFields) ? v.selectableFields : []),
    terminating,
    standardFinalizers: [...new Set(['orphan', 'foregroundDeletion', 'kubernetes', deps.naming.namespaceFinalizer])],
  });
  const subresources: SubresourceDef[] = [];
  if (statusEnabled) subresources.push(crStatusSubresource(names.kind));
  if (scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
  const def: ResourceDef = {
    group, version, kind: names.kind, listKind: names.listKind, resource: names.plural, singular: names.singular,
    namespaced: spec.scope === 'Namespaced', shortNames: names.shortNames, categories: names.categories,
    verbs: [...CR_VERBS], subresources, strategy, deleteReturnsStatus: false, nameValidation: 'dns-subdomain',
    schema: runtime.schema(), table: crTableColumns(Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : []),
    strategicMerge: false,
  };
  if (version !== storageVersion) def.storageVersion = storageVersion;
  // Reads and writes convert through the CRD's converter (also the storage version's: objects
  // written before the storage version changed are stored at another one).
  def.versioning = crVersioning(converter, readPath, version, storageVersion);
  const deprecation = crDeprecation(v, spec);
  if (deprecation) def.deprecation = deprecation;
  setCrReadPath(def, readPath);
  return { def, handlers: scale ? crScaleHandlers(group, version, names.plural, scale) : undefined };
}

/**
 * Builds the serving bundle of a CRD (validated on write). Throws an Error naming what is
 * missing when the CRD cannot be served (no accepted names, no storage version).
 */
export const buildCrServing: CrServingFactory = (crd: ApiObject, deps: CrServingDeps): CrServing => {
  const spec = crdSpec(crd);
  const group = spec.group;
  if (typeof group !== 'string' || !group) throw new Error(`CustomResourceDefinition ${crd.metadata?.name} has no spec.group`);
  const names = acceptedNames(crd);
  const storageVersion = storageVersionOf(crd);
  if (!storageVersion) throw new Error(`CustomResourceDefinition ${crd.metadata?.name} has no storage version`);
  const terminating = crdTerminating(crd);
  const converter = converterFor(crd, { naming: deps.naming, clients: deps.conversionClients });
  const defs = new Map<string, ResourceDef>();
  const customHandlers: CustomHandlers = new Map();
  for (const v of crdVersions(spec)) {
    if (v.served !== true || typeof v.name !== 'string') continue;
    const { def, handlers } = versionDef(crd, spec, v, names, storageVersion, deps, terminating, converter);
    defs.set(v.name, def);
    for (const [k, h] of handlers ?? []) customHandlers.set(k, h);
  }
  return {
    uid: String(crd.metadata?.uid ?? ''), name: String(crd.metadata?.name ?? ''), group, plural: names.plural,
    keySegment: `${group}/${specPlural(spec) ?? names.plural}`, storageVersion, defs, customHandlers, terminating,
    generation: typeof crd.metadata?.generation === 'number' ? crd.metadata.generation : 0,
  };
};
