/**
 * Request info: what a request is about (verb, group, version, namespace, resource, name,
 * subresource), parsed from the path and method the way kube-apiserver does, before anything
 * else runs. Authorization, audit and logging read it.
 */
import { errors } from '../meta/api-errors';
import { parseBool } from './query';
import { parseFieldSelectorSyntax, requirementFor } from '../meta/field-selector';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection; or the lower-case HTTP method for non-resource paths. */
  verb: string;
  apiPrefix?: 'api' | 'apis';
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  /**
   * The one object a list or watch asks for with a `metadata.name=` field selector, as
   * kube-apiserver's request info takes it: authorization (a Role's `resourceNames`) and audit
   * see it as the request's name. The handlers still list.
   */
  listName?: string;
  /** A list's or watch's `fieldSelector` as given (the Node authorizer reads `spec.nodeName=` from it). */
  fieldSelector?: string;
  subresource?: string;
}

/** Subresources of the namespace object itself (`/namespaces/<name>/<sub>`). */
const namespaceSubresources = new Set(['status', 'finalize']);

/** The path's segments; empty ones are dropped at the ends (a leading or trailing '/') but kept inside. */
function pathSegments(path: string): string[] {
  const all = path.split('/');
  let start = 0;
  let end = all.length;
  if (end && all[0] === '') start++;
  if (end > start && all[end - 1] === '') end--;
  return start === 0 && end === all.length ? all : all.slice(start, end);
}

/** A percent-decoded path segment; a malformed escape (`%`, `%ZZ`, bytes that are not UTF-8) is 400. */
function decodeSegment(kind: string, raw: string): string {
  // Nearly every segment has no escape: nothing to decode.
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2})[^%]{0,2}/.exec(raw)?.[0];
    throw errors.badRequest(bad !== undefined ? `invalid URL escape ${JSON.stringify(bad)} in the ${kind}`
      : `the ${kind} is not valid UTF-8 once percent-decoded`);
  }
}

function checkSegment(kind: string, value: string): void {
  if (value === '.' || value === '..') throw errors.badRequest(`${kind} may not be '${value}'`);
  if (value.includes('%')) throw errors.badRequest(`${kind} may not contain '%'`);
}

/** `query`: the query string (without '?'); only a GET's `watch` parameter is read from it. */
export function parseRequestInfo(method: string, path: string, query: string): RequestInfo {
  const nonResource: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), group: '', version: '', resource: '' };
  const parts = pathSegments(path);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return nonResource;
  const apiPrefix = parts[0] as 'api' | 'apis';
  let rest: string[];
  let group = '';
  let version: string;
  if (apiPrefix === 'api') {
    if (parts.length < 3) return { ...nonResource, apiPrefix };
    version = parts[1];
    rest = parts.slice(2);
  } else {
    if (parts.length < 4) return { ...nonResource, apiPrefix };
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = decodeSegment('namespace', rest[1]);
    if (rest.length > 2 && !namespaceSubresources.has(rest[2])) rest = rest.slice(2);
    else namespace = undefined; // the namespace object itself
  }
  const [resource, rawName, subresource, ...extra] = rest;
  // The path a proxy subresource forwards (`.../pods/<name>/proxy/<path>`); nothing else has more segments.
  if (extra.length && subresource !== 'proxy') throw errors.notFoundPath();
  const name = rawName === undefined ? undefined : decodeSegment('name', rawName);
  if (namespace !== undefined) checkSegment('namespace', namespace);
  if (name !== undefined) checkSegment('name', name);
  if (name === '') throw errors.notFoundPath();

  let verb: string;
  switch (method) {
    case 'GET': case 'HEAD':
      verb = query.includes('watch') && parseBool(new URLSearchParams(query).get('watch') ?? undefined, 'watch') ? 'watch' : name ? 'get' : 'list';
      break;
    case 'POST': verb = 'create'; break;
    case 'PUT': verb = 'update'; break;
    case 'PATCH': verb = 'patch'; break;
    case 'DELETE': verb = name ? 'delete' : 'deletecollection'; break;
    default: verb = method.toLowerCase();
  }
  const listName = verb === 'list' || verb === 'watch' ? nameOfFieldSelector(query) : undefined;
  const fieldSelector = (verb === 'list' || verb === 'watch') && query ? new URLSearchParams(query).get('fieldSelector') ?? undefined : undefined;
  return {
    isResourceRequest: true, path, verb, apiPrefix, group, version, namespace, resource, name, subresource,
    ...(listName ? { listName } : {}), ...(fieldSelector ? { fieldSelector } : {}),
  };
}

/**
 * The name a `metadata.name=` (or `==`) term of the fieldSelector parameter requires, when it is
 * a valid path segment name (not `.` or `..`, no `/` or `%`); undefined otherwise, and when the
 * selector does not parse (the list handler answers that).
 */
function nameOfFieldSelector(query: string): string | undefined {
  const raw = query ? new URLSearchParams(query).get('fieldSelector') : null;
  if (!raw) return undefined;
  let name: string | undefined;
  try {
    name = requirementFor(parseFieldSelectorSyntax(raw), 'metadata.name');
  } catch {
    return undefined;
  }
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
  return name;
}
