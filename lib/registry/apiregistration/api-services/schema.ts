/**
 * Schema of apiregistration.k8s.io/v1 APIService (kube-aggregator's types): where a group-version
 * is served (a Service, or locally when none is named), how the server trusts it, and its
 * priority among groups and among the group's versions; its status conditions (Available).
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, bool, bytes, int32, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const T = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1';

const serviceReference = goType(`${T}.ServiceReference`, object({
  namespace: str('Namespace is the namespace of the service'),
  name: str('Name is the name of the service'),
  port: int32('If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).'),
}, { description: 'ServiceReference holds a reference to Service.legacy.k8s.io' }));

export const apiServiceSpec = goType(`${T}.APIServiceSpec`, object({
  service: fieldOfType(serviceReference, { description: 'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.' }),
  group: str('Group is the API group name this server hosts'),
  version: str('Version is the API version this server hosts.  For example, "v1"'),
  insecureSkipTLSVerify: bool('InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.'),
  caBundle: { ...bytes('CABundle is a PEM encoded CA bundle which will be used to validate an API server\'s serving certificate. If unspecified, system trust roots on the apiserver are used.'), 'x-kubernetes-list-type': 'atomic' },
  groupPriorityMinimum: int32('GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. Note that other versions of this group might specify even higher GroupPriorityMinimum values such that the whole group gets a higher priority. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10). The secondary sort is based on the alphabetical comparison of the name of the object.  (v1.bar before v1.foo) We\'d recommend something like: *.k8s.io (except extensions) at 18000 and PaaSes (OpenShift, Deis) are recommended to be in the 2000s'),
  versionPriority: int32('VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). Since it\'s inside of a group, the number can be small, probably in the 10s. In case of equal version priorities, the version string will be used to compute the order inside a group. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.'),
}, { required: ['groupPriorityMinimum', 'versionPriority'], description: 'APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.' }));

const apiServiceCondition = goType(`${T}.APIServiceCondition`, object({
  type: str('Type is the type of the condition.'),
  status: str('Status is the status of the condition. Can be True, False, Unknown.'),
  lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
  reason: str('Unique, one-word, CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable message indicating details about last transition.'),
}, { required: ['type', 'status'], description: 'APIServiceCondition describes the state of an APIService at a particular point' }));

export const apiServiceStatus = goType(`${T}.APIServiceStatus`, object({
  conditions: {
    ...mapList(apiServiceCondition, ['type'], 'Current service state of apiService.'),
    'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type',
  },
}, { description: 'APIServiceStatus contains derived information about an API server' }));

export const apiServiceSchema: Schema = kindSchema({
  spec: fieldOfType(apiServiceSpec, { description: 'Spec contains information for locating and communicating with a server' }),
  status: fieldOfType(apiServiceStatus, { description: 'Status contains derived information about an API server' }),
}, 'APIService represents a server for a particular GroupVersion. Name must be "version.group".');
