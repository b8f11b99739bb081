/**
 * ResourceQuota (core/v1, namespaced, short name `quota`): aggregate limits per namespace on
 * compute resources, storage and object counts, optionally for the objects its scopes and scope
 * selector pick. Status (hard copied from the spec, used) is cleared on create and written only
 * through `/status`, which keeps the spec; main writes keep the stored status. Scopes are
 * immutable. Quantities are stored rounded up to milli units (SetDefaults_ResourceList). A
 * create whose requests exceed its limits (cpu, memory, storage, ephemeral-storage) is warned.
 *
 * Not here: the ResourceQuota admission plugin (lib/admission/resourcequota/) that charges
 * usage before a write, and the quota controller (lib/controllers/resource-quota/).
 */
import { ApiObject, ResourceDef, StrategyContext } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { compareQuantities, formatQuantity, tryParseQuantity } from '../../../meta/quantity';
import { statusSubresource } from '../../status-subresource';
import { canonicalResourceList } from '../resource-quantities';
import { resourceQuotaSchema } from './schema';
import { resourceQuotaTable } from './table';
import {
  ResourceQuotaStatus, specOf, statusOf, validateResourceQuotaSpec, validateResourceQuotaStatus, validateResourceQuotaUpdate,
} from './validation';

const KIND = 'ResourceQuota';

/** The status as stored: both lists canonical, empty ones dropped (omitempty). */
function normalizeStatus(status: ResourceQuotaStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (status.hard && Object.keys(status.hard).length) out.hard = canonicalResourceList(status.hard);
  if (status.used && Object.keys(status.used).length) out.used = canonicalResourceList(status.used);
  return out;
}

/** SetDefaults_ResourceList over spec.hard; the spec struct is always written. */
function defaultQuota(obj: ApiObject): void {
  const spec = (obj.spec && typeof obj.spec === 'object' ? obj.spec : {}) as Record<string, unknown>;
  if (spec.hard) spec.hard = canonicalResourceList(spec.hard);
  obj.spec = spec;
}

/** WarningsOnCreate: a request above its limit among cpu, memory, storage, ephemeral-storage. */
function warnRequestsOverLimits(obj: ApiObject, ctx: StrategyContext): void {
  const hard = specOf(obj).hard ?? {};
  for (const name of ['cpu', 'memory', 'storage', 'ephemeral-storage']) {
    let reqName = `requests.${name}`;
    if (!(reqName in hard) && (name === 'cpu' || name === 'memory') && name in hard) reqName = name;
    const req = reqName in hard ? tryParseQuantity(hard[reqName]) : undefined;
    const lim = tryParseQuantity(hard[`limits.${name}`]);
    if (req && lim && compareQuantities(req, lim) > 0) {
      ctx.warn?.(`ResourceQuota ${reqName} (${formatQuantity(req)}) should be less than limits.${name} (${formatQuantity(lim)})`);
    }
  }
}

export function resourceQuotaResource(): ResourceDef {
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'ResourceQuotaList', resource: 'resourcequotas', singular: 'resourcequota',
    namespaced: true, shortNames: ['quota'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => normalizeStatus(status as ResourceQuotaStatus))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: resourceQuotaSchema,
    table: resourceQuotaTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, resourceQuotaSchema, KIND),
      default: defaultQuota,
      prepareForCreate: (obj, ctx) => { defaultQuota(obj); obj.status = {}; warnRequestsOverLimits(obj, ctx); },
      prepareForUpdate: (obj, old) => { defaultQuota(obj); obj.status = old.status ?? {}; },
      validate: (obj) => [...validateResourceQuotaSpec(specOf(obj)), ...validateResourceQuotaStatus(statusOf(obj))],
      // Main writes carry the stored status and /status writes the stored spec, so checking both
      // covers ValidateResourceQuotaUpdate and ValidateResourceQuotaStatusUpdate.
      validateUpdate: (obj, old) => [...validateResourceQuotaUpdate(obj, old), ...validateResourceQuotaStatus(statusOf(obj))],
    },
  };
}
