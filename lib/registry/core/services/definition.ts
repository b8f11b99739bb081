/**
 * Service (core/v1, namespaced, short name `svc`, category `all`): a stable address (cluster
 * IPs from --service-cluster-ip-range, node ports from --service-node-port-range) for the pods
 * a selector picks. Defaults, validation and the strategy are Kubernetes 1.32's; the
 * allocators run as the store's storage hooks (allocators.ts): allocate before the write,
 * release what a failed write took, release on delete and on type changes. Status is reset on
 * create and written only through `/status`. PUT may create. Field selectors: `spec.clusterIP`,
 * `spec.type`. kube-controller-manager keeps its Endpoints; this server serves it.
 */
import type { ApiObject, ResourceDef, StorageHooks, StoreEnvironment, WriteFinisher } from '../../../scheme/types';
import type { Storage } from '../../../storage/interfaces';
import { decodeProblem } from '../../../scheme/decode-check';
import { statusSubresource } from '../../status-subresource';
import { logger } from '../../../logger';
import { AllocationTransaction, ServiceAllocators } from './allocators';
import { defaultService, defaultServiceStatus, dropTypeDependentFields, normalizeClusterIPs, patchAllocatedValues } from './defaults';
import { ServiceNetwork } from './network';
import { serviceSchema } from './schema';
import { specOf, statusOf } from './spec';
import { serviceTable } from './table';
import { validateServiceSpec, validateServiceSpecUpdate, validateServiceStatus } from './validation';

const KIND = 'Service';

const finisher = (txn: AllocationTransaction): WriteFinisher => (success) => (success ? txn.commit() : txn.revert());

/** The allocators of one store environment (one etcd and prefix), made once. */
export function allocatorsFor(network: ServiceNetwork): (env: StoreEnvironment) => ServiceAllocators {
  const made = new WeakMap<object, Map<string, ServiceAllocators>>();
  return (env) => {
    let byPrefix = made.get(env.storage);
    if (!byPrefix) made.set(env.storage, byPrefix = new Map());
    let alloc = byPrefix.get(env.prefix);
    if (!alloc) byPrefix.set(env.prefix, alloc = new ServiceAllocators(network, env.storage as Storage, env.prefix));
    return alloc;
  };
}

function serviceStorageHooks(network: ServiceNetwork): StorageHooks {
  const allocators = allocatorsFor(network);
  return {
    beginCreate: async (obj, env, dryRun) => finisher(await allocators(env).allocateCreate(obj, dryRun)),
    beginUpdate: async (obj, old, env, dryRun) => finisher(await allocators(env).allocateUpdate(obj, old, dryRun)),
    afterDelete: async (obj, env) => {
      try {
        await allocators(env).releaseAll(obj);
      } catch (err) {
        // What is not released now the repair loop releases later.
        logger.warn('service delete: failed to release its allocations', { service: `${obj.metadata?.namespace}/${obj.metadata?.name}`, error: String(err) });
      }
    },
  };
}

/** The status as Go writes it: `loadBalancer` always (a value struct), conditions when set. */
function normalizeStatus(status: Record<string, unknown>, current: ApiObject): Record<string, unknown> {
  const out = { ...status, loadBalancer: status.loadBalancer && typeof status.loadBalancer === 'object' ? status.loadBalancer : {} };
  const probe: ApiObject = { spec: current.spec, status: out };
  defaultServiceStatus(probe);
  return out;
}

export function serviceResource(network: ServiceNetwork): ResourceDef {
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'ServiceList',
    resource: 'services', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, normalizeStatus)],
    deleteReturnsStatus: false,
    nameValidation: 'dns-1035-label',
    schema: serviceSchema,
    table: serviceTable,
    storageHooks: serviceStorageHooks(network),
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, serviceSchema, KIND),
      default: defaultService,
      prepareForCreate: (obj) => {
        defaultService(obj);
        obj.status = { loadBalancer: {} };
        normalizeClusterIPs(specOf(obj));
      },
      prepareForUpdate: (obj, old) => {
        defaultService(obj);
        obj.status = old.status ?? { loadBalancer: {} };
        patchAllocatedValues(specOf(obj), specOf(old));
        normalizeClusterIPs(specOf(obj), specOf(old));
        dropTypeDependentFields(obj, old);
      },
      validate: (obj) => validateServiceSpec(specOf(obj), obj.metadata?.annotations ?? {}),
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what Kubernetes' two strategies check between them.
      validateUpdate: (obj, old) => [
        ...validateServiceSpecUpdate(specOf(obj), specOf(old)),
        ...validateServiceSpec(specOf(obj), obj.metadata?.annotations ?? {}),
        ...validateServiceStatus(statusOf(obj), specOf(obj)),
      ],
      fieldSet: (obj) => ({ 'spec.clusterIP': String(specOf({ ...obj }).clusterIP ?? ''), 'spec.type': String(specOf({ ...obj }).type ?? '') }),
      selectableFields: ['spec.clusterIP', 'spec.type'],
    },
  };
}
