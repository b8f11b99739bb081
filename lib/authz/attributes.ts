/**
 * What authorization looks at (the access-control spec's list): the user (name, groups, extra),
 * whether the request is for a resource, the path of a non-resource request, the API verb, the
 * name, subresource, namespace, group, version and resource. Built once per request.
 */
import { RequestInfo } from '../api/request-info';
import { UserInfo } from '../meta/user';

export interface AuthorizationAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, or a special verb (impersonate, bind, ...); lower-case HTTP method for non-resource requests. */
  verb: string;
  isResourceRequest: boolean;
  /** The request path (what non-resource rules match). */
  path: string;
  /** The HTTP method (GET, POST, ...); '' for checks that are not a request (impersonation, access reviews). */
  httpMethod?: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** A list's or watch's field selector as the request gave it (Kubernetes' GetFieldSelector). */
  fieldSelector?: string;
}

export function attributesOf(user: UserInfo, info: RequestInfo, httpMethod = ''): AuthorizationAttributes {
  return {
    user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path, httpMethod,
    apiGroup: info.group, apiVersion: info.version, resource: info.resource, subresource: info.subresource ?? '',
    namespace: info.namespace ?? '', name: info.name ?? info.listName ?? '',
    ...(info.fieldSelector ? { fieldSelector: info.fieldSelector } : {}),
  };
}

/**
 * Kubernetes' sentence for a refusal: `User "bob" cannot list resource "pods" in API group ""
 * in the namespace "default"` (or `at the cluster scope`, or `cannot get path "/apis"`).
 */
export function forbiddenSentence(a: AuthorizationAttributes): string {
  if (!a.isResourceRequest) return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}
