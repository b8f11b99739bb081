/**
 * The paths and operations the server serves for each resource, in a form independent of the
 * OpenAPI version (v2.ts and v3.ts write it). Operation ids, actions, parameters and response
 * codes follow kube-apiserver's documents; only what this server serves is listed.
 */
import { apiVersionOf, GroupVersion, ResourceDef, SubresourceDef } from '../../scheme/types';
import { patchTypesForDef } from '../handlers/patch';
import { DECODABLE } from '../negotiation';
import { definitionName, metaNames, operationId, tagOf, upperFirst } from './schema-names';

export interface GroupVersionKind { group: string; version: string; kind: string }

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  description: string;
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
}

export interface Response { code: string; description: string; schema: string; contentTypes: string[] }

export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  operationId: string;
  description: string;
  /** Kubernetes' `x-kubernetes-action`. */
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  /** The kind the operation reads or writes; absent for non-resource operations. */
  gvk?: GroupVersionKind;
  tag: string;
  parameters: Parameter[];
  body?: { schema: string; contentTypes: string[]; required: boolean };
  responses: Response[];
}

export interface PathItem { path: string; parameters: Parameter[]; operations: Operation[] }

const OBJECT_TYPES = ['application/json', 'application/yaml'];
const LIST_TYPES = ['application/json', 'application/json;stream=watch', 'application/yaml'];

const q = (name: string, type: Parameter['type'], description: string): Parameter => ({ name, in: 'query', type, description });

const P = {
  namespace: { name: 'namespace', in: 'path', required: true, type: 'string', description: 'object name and auth scope, such as for teams and projects' } as Parameter,
  name: (kind: string): Parameter => ({ name: 'name', in: 'path', required: true, type: 'string', description: `name of the ${kind}` }),
  dryRun: q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: q('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes. It is required for apply requests (application/apply-patch) and optional for the others.'),
  fieldValidation: q('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: drops unknown fields and ignores duplicates. - Warn: sends a warning for each unknown or duplicate field; the default. - Strict: fails the request with a BadRequest error listing every unknown and duplicate field.'),
  force: q('force', 'boolean', 'Force is going to "force" Apply requests: the user re-acquires fields owned by other managers. Must be unset for non-apply patch requests.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted. Zero means delete immediately.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  propagationPolicy: q('propagationPolicy', 'string', 'Whether and how garbage collection will be performed: \'Orphan\', \'Background\' or \'Foreground\'.'),
  labelSelector: q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  fieldSelector: q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  limit: q('limit', 'integer', 'limit is a maximum number of responses to return for a list call; `continue` in the list metadata fetches the rest.'),
  continue: q('continue', 'string', 'The continue token of a previous list call with the same parameters, to retrieve its next chunk.'),
  resourceVersion: q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls: NotOlderThan or Exact.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.'),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch=true, starts the watch stream with synthetic ADDED events of every current object, then a BOOKMARK.'),
};

const LIST_PARAMS = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];
const DELETECOLLECTION_PARAMS = [...DELETE_PARAMS, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];

const ok = (schema: string, contentTypes = OBJECT_TYPES): Response => ({ code: '200', description: 'OK', schema, contentTypes });
const created = (schema: string): Response => ({ code: '201', description: 'Created', schema, contentTypes: OBJECT_TYPES });
const accepted = (schema: string): Response => ({ code: '202', description: 'Accepted', schema, contentTypes: OBJECT_TYPES });

/** `/api/v1` or `/apis/<group>/<version>`. */
export function gvPrefix(gv: GroupVersion): string {
  return gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
}

/** GET `<prefix>/`: the group/version's APIResourceList. */
export function apiResourcesPath(gv: GroupVersion): PathItem {
  return {
    path: `${gvPrefix(gv)}/`,
    parameters: [],
    operations: [{
      method: 'get', operationId: operationId('get', gv.group, gv.version, 'APIResources'), action: 'get', tag: tagOf(gv.group, gv.version),
      description: `get available resources of ${apiVersionOf(gv)}`, parameters: [], responses: [ok(metaNames.apiResourceList, ['application/json', 'application/yaml'])],
    }],
  };
}

/** Every path of one resource: its collection, items, subresources and, if namespaced, the all-namespaces list. */
export function resourcePaths(def: ResourceDef): PathItem[] {
  const { group, version, kind } = def;
  const has = (verb: string) => def.verbs.includes(verb);
  const scope = def.namespaced ? 'Namespaced' : '';
  const collection = `${gvPrefix(def)}${def.namespaced ? '/namespaces/{namespace}' : ''}/${def.resource}`;
  const nsParams = def.namespaced ? [P.namespace] : [];
  const self = definitionName(group, version, kind);
  const list = definitionName(group, version, def.listKind);
  const gvk = { group, version, kind };
  const op = (o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: GroupVersionKind }): Operation => ({ gvk, tag: tagOf(group, version), ...o });
  const id = (verb: string, rest: string) => operationId(verb, group, version, rest);
  const deleted = def.deleteReturnsStatus ? metaNames.status : self;

  const collectionOps: Operation[] = [];
  if (has('list')) {
    collectionOps.push(op({ method: 'get', action: 'list', operationId: id('list', `${scope}${kind}`), description: `list or watch objects of kind ${kind}`, parameters: LIST_PARAMS, responses: [ok(list, LIST_TYPES)] }));
  }
  if (has('create')) {
    collectionOps.push(op({
      method: 'post', action: 'post', operationId: id('create', `${scope}${kind}`), description: `create a ${kind}`, parameters: WRITE_PARAMS,
      body: { schema: self, contentTypes: DECODABLE, required: true }, responses: [ok(self), created(self), accepted(self)],
    }));
  }
  if (has('deletecollection')) {
    collectionOps.push(op({
      method: 'delete', action: 'deletecollection', operationId: id('delete', `Collection${scope}${kind}`), description: `delete collection of ${kind}`,
      parameters: DELETECOLLECTION_PARAMS, body: { schema: metaNames.deleteOptions, contentTypes: ['application/json'], required: false }, responses: [ok(metaNames.status)],
    }));
  }

  const itemOps: Operation[] = [];
  if (has('get')) itemOps.push(op({ method: 'get', action: 'get', operationId: id('read', `${scope}${kind}`), description: `read the specified ${kind}`, parameters: [], responses: [ok(self)] }));
  if (has('update')) {
    itemOps.push(op({
      method: 'put', action: 'put', operationId: id('replace', `${scope}${kind}`), description: `replace the specified ${kind}`, parameters: WRITE_PARAMS,
      body: { schema: self, contentTypes: DECODABLE, required: true }, responses: [ok(self), created(self)],
    }));
  }
  if (has('patch')) itemOps.push(patchOperation(def, op, id('patch', `${scope}${kind}`), `partially update the specified ${kind}`, self));
  if (has('delete')) {
    itemOps.push(op({
      method: 'delete', action: 'delete', operationId: id('delete', `${scope}${kind}`), description: `delete a ${kind}`, parameters: DELETE_PARAMS,
      body: { schema: metaNames.deleteOptions, contentTypes: ['application/json'], required: false }, responses: [ok(deleted), accepted(deleted)],
    }));
  }

  const items: PathItem[] = [];
  if (collectionOps.length) items.push({ path: collection, parameters: nsParams, operations: collectionOps });
  if (itemOps.length) items.push({ path: `${collection}/{name}`, parameters: [P.name(kind), ...nsParams], operations: itemOps });
  for (const sub of def.subresources) {
    if (sub.connect) continue;
    items.push({ path: `${collection}/{name}/${sub.name}`, parameters: [P.name(kind), ...nsParams], operations: subresourceOperations(def, sub, op, `${scope}${kind}`) });
  }
  if (def.namespaced && has('list')) {
    items.push({
      path: `${gvPrefix(def)}/${def.resource}`, parameters: [],
      operations: [op({ method: 'get', action: 'list', operationId: id('list', `${kind}ForAllNamespaces`), description: `list or watch objects of kind ${kind}`, parameters: LIST_PARAMS, responses: [ok(list, LIST_TYPES)] })],
    });
  }
  return items;
}

type OperationFactory = (o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: GroupVersionKind }) => Operation;

/** PATCH: its request body lists exactly the patch types the handler accepts for the kind. */
function patchOperation(def: ResourceDef, op: OperationFactory, id: string, description: string, schema: string, gvk?: GroupVersionKind): Operation {
  return op({
    method: 'patch', action: 'patch', operationId: id, description, ...(gvk ? { gvk } : {}),
    parameters: [...WRITE_PARAMS, P.force],
    body: { schema: metaNames.patch, contentTypes: patchTypesForDef(def), required: true },
    responses: [ok(schema), created(schema)],
  });
}

function subresourceOperations(def: ResourceDef, sub: SubresourceDef, op: OperationFactory, subject: string): Operation[] {
  const gvk = { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind };
  const schema = definitionName(gvk.group, gvk.version, sub.kind);
  const id = (verb: string) => operationId(verb, def.group, def.version, `${subject}${upperFirst(sub.name)}`);
  const out: Operation[] = [];
  if (sub.verbs.includes('get')) {
    out.push(op({ method: 'get', action: 'get', gvk, operationId: id('read'), description: `read ${sub.name} of the specified ${def.kind}`, parameters: [], responses: [ok(schema)] }));
  }
  if (sub.verbs.includes('update')) {
    out.push(op({
      method: 'put', action: 'put', gvk, operationId: id('replace'), description: `replace ${sub.name} of the specified ${def.kind}`, parameters: WRITE_PARAMS,
      body: { schema, contentTypes: DECODABLE, required: true }, responses: [ok(schema), created(schema)],
    }));
  }
  if (sub.verbs.includes('create')) {
    out.push(op({
      method: 'post', action: 'post', gvk, operationId: id('create'), description: `create ${sub.name} of a ${def.kind}`, parameters: WRITE_PARAMS,
      body: { schema, contentTypes: DECODABLE, required: true }, responses: [ok(schema), created(schema), accepted(schema)],
    }));
  }
  if (sub.verbs.includes('patch')) out.push(patchOperation(def, op, id('patch'), `partially update ${sub.name} of the specified ${def.kind}`, schema, gvk));
  return out;
}
