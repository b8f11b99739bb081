/**
 * APIService (apiregistration.k8s.io/v1, cluster-scoped): a group-version and the server that
 * serves it, a Service in the cluster (the aggregation layer, lib/aggregation/, proxies to it) or
 * this server itself when no service is named (the local APIServices the server keeps for what it
 * serves). Named `<version>.<group>`. Status (the Available condition) only through `/status`.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { statusSubresource } from '../../status-subresource';
import { apiServiceSchema } from './schema';

const KIND = 'APIService';

export function apiServiceResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('apiregistration'), version: 'v1', kind: KIND, listKind: 'APIServiceList',
    resource: 'apiservices', singular: 'apiservice', namespaced: false, shortNames: [], categories: ['api-extensions'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND)],
    deleteReturnsStatus: true,
    nameValidation: 'path-segment',
    schema: apiServiceSchema,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, apiServiceSchema, KIND),
      prepareForCreate: (obj: ApiObject) => { obj.status = {}; },
      prepareForUpdate: (obj: ApiObject, old: ApiObject) => { obj.status = old.status ?? {}; },
    },
  };
}
