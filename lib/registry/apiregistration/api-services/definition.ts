/**
 * APIService (apiregistration.k8s.io/v1, cluster-scoped, category `api-extensions`): a
 * group-version and the server that serves it, a Service in the cluster (the aggregation layer,
 * lib/aggregation/, proxies to it) or this server itself when no service is named (the local
 * APIServices the server keeps for what it serves). Named `<version>.<group>`.
 * As kube-aggregator's strategy (1.32): a create drops the status and marks a local APIService
 * Available (reason Local); a write to the object keeps the stored status, a `/status` write
 * keeps the spec and metadata; an update must name a resourceVersion; no generation is kept;
 * DELETE answers a Status. kubectl's NAME SERVICE AVAILABLE AGE table.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { statusSubresource } from '../../status-subresource';
import { now } from '../../system-fields';
import { apiServiceSchema } from './schema';
import { caBundleProblem, defaultApiService, normalizeStatus, validateApiService, validateApiServiceStatus } from './validation';

const KIND = 'APIService';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** NewLocalAvailableAPIServiceCondition. */
export function localAvailableCondition(): Json {
  return { type: 'Available', status: 'True', lastTransitionTime: now(), reason: 'Local', message: 'Local APIServices are always available' };
}

/** The Available cell: Unknown without the condition, its status when True, else `<status> (<reason>)` when it has a reason. */
function availableCell(obj: Json): string {
  const status = isObject(obj.status) ? obj.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const c = conditions.find((x) => isObject(x) && x.type === 'Available') as Json | undefined;
  if (!c) return 'Unknown';
  const s = typeof c.status === 'string' ? c.status : '';
  if (s === 'True') return s;
  return typeof c.reason === 'string' && c.reason ? `${s} (${c.reason})` : s;
}

/** The Service cell: `Local` without a service, else `<namespace>/<name>`. */
function serviceCell(obj: Json): string {
  const spec = isObject(obj.spec) ? obj.spec : {};
  if (!isObject(spec.service)) return 'Local';
  const { namespace, name } = spec.service;
  return `${typeof namespace === 'string' ? namespace : ''}/${typeof name === 'string' ? name : ''}`;
}

/** kube-aggregator's ConvertToTable for apiservices. */
export const apiServiceTable: TableColumns = {
  columns: [
    nameColumn,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    ageColumn,
  ],
  cells: (obj, at) => [obj.metadata?.name ?? '', serviceCell(obj), availableCell(obj), translateTimestampSince(obj.metadata?.creationTimestamp, at)],
};

/** PrepareForCreate: no status but, for a local APIService, Available. */
function prepareForCreate(obj: ApiObject): void {
  defaultApiService(obj);
  const spec = obj.spec as Json;
  obj.status = isObject(spec.service) ? {} : { conditions: [localAvailableCondition()] };
}

export function apiServiceResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('apiregistration'), version: 'v1', kind: KIND, listKind: 'APIServiceList',
    resource: 'apiservices', singular: 'apiservice', namespaced: false, shortNames: [], categories: ['api-extensions'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{
      ...statusSubresource(KIND, (status) => normalizeStatus(status)),
      validateUpdate: (obj) => validateApiServiceStatus(obj),
    }],
    deleteReturnsStatus: true,
    // IsValidPathSegmentName; validate() adds that the name is `<version>.<group>` (`v1.` for the core group).
    nameValidation: 'path-segment',
    schema: apiServiceSchema,
    table: apiServiceTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      checkDecode: (obj) => decodeProblem(obj, apiServiceSchema, KIND) ?? caBundleProblem(obj),
      default: defaultApiService,
      prepareForCreate,
      prepareForUpdate: (obj: ApiObject, old: ApiObject) => {
        defaultApiService(obj);
        obj.status = normalizeStatus(old.status);
      },
      validate: (obj) => validateApiService(obj),
      validateUpdate: (obj) => validateApiService(obj),
    },
  };
}
