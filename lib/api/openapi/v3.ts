/**
 * OpenAPI v3: one document per served group/version (`/openapi/v3/api/v1`,
 * `/openapi/v3/apis/<group>/<version>`), and the index listing them (`/openapi/v3`), as
 * kube-apiserver serves them. Built from the ResourceDefs and their schemas.
 */
import { Naming } from '../../naming';
import { GroupVersion, ResourceDef } from '../../scheme/types';
import { servedGroups } from '../discovery';
import { vendorExtensions } from './extensions';
import { kindDefinitions, nameKindParts } from './kind-definitions';
import { metaDefinitions, metaNamed } from './meta-definitions';
import { apiResourcesPath, Operation, Parameter, PathItem, resourcePaths } from './operations';
import { Json, ref, SchemaWriter, typeDefinitions } from './schema-writer';

/** Document title and version (`info`). */
export interface DocumentInfo { title: string; version: string }

/**
 * The served group/versions, core first, then by group name (the documents list the
 * DeleteOptions and WatchEvent kinds' group/versions so, as kube-apiserver's do), each group's
 * versions in discovery order.
 */
export function servedGroupVersions(resources: readonly ResourceDef[]): GroupVersion[] {
  return [...servedGroups(resources)].sort((a, b) => (a.name === b.name ? 0 : a.name < b.name ? -1 : 1))
    .flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
}

/** The index key of a group/version: `api/v1`, `apis/<group>/<version>`. */
export function groupVersionKey(gv: GroupVersion): string {
  return gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
}

/** The resources of one group/version, sorted by resource name. */
export function resourcesOfGroupVersion(gv: GroupVersion, resources: readonly ResourceDef[]): ResourceDef[] {
  return resources.filter((r) => r.group === gv.group && r.version === gv.version)
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

export function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
}

/** Operation-level vendor extensions: `action` and the single (not listed) `group-version-kind`. */
export function operationExtensions(naming: Naming, o: Operation): Json {
  return vendorExtensions(naming, { action: o.action, ...(o.gvk ? { 'group-version-kind': { group: o.gvk.group, kind: o.gvk.kind, version: o.gvk.version } } : {}) });
}

function parameter(p: Parameter): Json {
  return { description: p.description, in: p.in, name: p.name, ...(p.required ? { required: true } : {}), schema: { type: p.type, uniqueItems: true } };
}

function operation(w: SchemaWriter, o: Operation): Json {
  const out: Json = { description: o.description, operationId: o.operationId };
  if (o.parameters.length) out.parameters = o.parameters.map(parameter);
  if (o.body) {
    const schema = ref(w, o.body.schema);
    out.requestBody = { content: Object.fromEntries(o.body.contentTypes.map((ct) => [ct, { schema }])), ...(o.body.required ? { required: true } : {}) };
  }
  out.responses = Object.fromEntries(o.responses.map((r) => {
    const schema = ref(w, r.schema);
    return [r.code, { content: Object.fromEntries(r.contentTypes.map((ct) => [ct, { schema }])), description: r.description }];
  }));
  out.tags = [o.tag];
  return { ...out, ...operationExtensions(w.naming, o) };
}

function pathItem(w: SchemaWriter, item: PathItem): Json {
  const out: Json = {};
  for (const o of item.operations) out[o.method] = operation(w, o);
  if (item.parameters.length) out.parameters = item.parameters.map(parameter);
  return sortedKeys(out);
}

/**
 * The v3 document of one group/version: every path of its resources and the definitions they
 * use (`components.schemas`). `resources` may hold other group/versions; they only add their
 * group/version to the DeleteOptions and WatchEvent kinds (`metaGroupVersions` when given).
 */
export function buildOpenApiV3(gv: GroupVersion, resources: readonly ResourceDef[], naming: Naming, info: DocumentInfo,
  metaGroupVersions: GroupVersion[] = servedGroupVersions(resources)): Json {
  const defs = resourcesOfGroupVersion(gv, resources);
  const w: SchemaWriter = { dialect: 'v3', naming, named: metaNamed() };
  nameKindParts(w, defs);
  const schemas = { ...metaDefinitions(w, metaGroupVersions), ...kindDefinitions(w, defs) };
  const paths: Json = {};
  for (const item of [apiResourcesPath(gv), ...defs.flatMap(resourcePaths)]) paths[item.path] = pathItem(w, item);
  Object.assign(schemas, typeDefinitions(w));
  return { openapi: '3.0.0', info: { ...info }, paths: sortedKeys(paths), components: { schemas: sortedKeys(schemas) } };
}

/** The `/openapi/v3` index: each group/version's document URL, carrying its content hash. */
export function buildOpenApiV3Index(hashes: Map<string, string>): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...hashes.keys()].sort()) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashes.get(key)}` };
  }
  return { paths };
}
