/**
 * OpenAPI v2 (Swagger 2.0): one document for everything served (`/openapi/v2`), built from the
 * same operations and schemas as the v3 documents.
 */
import { Naming } from '../../naming';
import { ResourceDef } from '../../scheme/types';
import { kindDefinitions, nameKindParts } from './kind-definitions';
import { metaDefinitions, metaNamed } from './meta-definitions';
import { apiResourcesPath, Operation, Parameter, PathItem, resourcePaths } from './operations';
import { Json, ref, SchemaWriter, typeDefinitionSteps } from './schema-writer';
import { runAtOnce } from './time-slice';
import { DocumentInfo, operationExtensions, resourcesOfGroupVersion, servedGroupVersions, sortedKeys } from './v3';

function parameter(p: Parameter): Json {
  return { description: p.description, in: p.in, name: p.name, ...(p.required ? { required: true } : {}), type: p.type, uniqueItems: true };
}

function operation(w: SchemaWriter, o: Operation): Json {
  const out: Json = { description: o.description };
  if (o.body) out.consumes = [...o.body.contentTypes];
  out.produces = [...new Set(o.responses.flatMap((r) => r.contentTypes))];
  out.schemes = ['https'];
  out.tags = [o.tag];
  out.operationId = o.operationId;
  const parameters = o.parameters.map(parameter);
  if (o.body) parameters.unshift({ in: 'body', name: 'body', ...(o.body.required ? { required: true } : {}), schema: ref(w, o.body.schema) });
  if (parameters.length) out.parameters = parameters;
  out.responses = Object.fromEntries(o.responses.map((r) => [r.code, { description: r.description, schema: ref(w, r.schema) }]));
  return { ...out, ...operationExtensions(w.naming, o) };
}

function pathItem(w: SchemaWriter, item: PathItem): Json {
  const out: Json = {};
  for (const o of item.operations) out[o.method] = operation(w, o);
  if (item.parameters.length) out.parameters = item.parameters.map(parameter);
  return sortedKeys(out);
}

/** The v2 document of every served group/version. */
export function buildOpenApiV2(resources: readonly ResourceDef[], naming: Naming, info: DocumentInfo): Json {
  return runAtOnce(openApiV2Steps(resources, naming, info));
}

/**
 * buildOpenApiV2 in steps (./time-slice.ts): one per resource's paths, per group-version's kind
 * definitions and per shared type's definition, so that the event loop can take turns between
 * them.
 */
export function* openApiV2Steps(resources: readonly ResourceDef[], naming: Naming, info: DocumentInfo): Generator<void, Json> {
  const gvs = servedGroupVersions(resources);
  const w: SchemaWriter = { dialect: 'v2', naming, named: metaNamed() };
  nameKindParts(w, resources);
  let definitions: Record<string, Json> = metaDefinitions(w, gvs);
  const kinds: Record<string, Json> = {};
  const paths: Json = {};
  for (const gv of gvs) {
    const defs = resourcesOfGroupVersion(gv, resources);
    Object.assign(kinds, kindDefinitions(w, defs));
    yield;
    const index = apiResourcesPath(gv);
    paths[index.path] = pathItem(w, index);
    for (const def of defs) {
      for (const item of resourcePaths(def)) paths[item.path] = pathItem(w, item);
      yield;
    }
  }
  // A kind's own definition wins over a shared type of the same Go name (a StatefulSet's claim
  // templates are PersistentVolumeClaims: they refer to the kind's definition, as in Kubernetes).
  definitions = { ...definitions, ...(yield* typeDefinitionSteps(w)), ...kinds };
  yield;
  return { swagger: '2.0', info: { ...info }, paths: sortedKeys(paths), definitions: sortedKeys(definitions) };
}
