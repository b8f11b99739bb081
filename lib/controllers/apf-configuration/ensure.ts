/**
 * The API priority and fairness configuration producer's decisions and writes (Kubernetes'
 * pkg/registry/flowcontrol/ensurer): each bootstrap FlowSchema and PriorityLevelConfiguration
 * (lib/registry/flowcontrol/bootstrap-configuration.ts) is created when missing; an existing one
 * gets the bootstrap spec back when it differs and auto-update applies (always for the mandatory
 * objects; for a suggested one while its `apf.kubernetes.io/autoupdate-spec` annotation parses as
 * true, or, without a boolean there, while its generation is 1), and the annotation is set to
 * what was decided. Objects the bootstrap no longer names are deleted only when they say
 * autoupdate true (RemoveUnwantedObjects). A race lost to another writer (AlreadyExists,
 * Conflict, NotFound) is left for the next pass, as Kubernetes does.
 */
import { GenericStore } from '../../registry/store';
import { ApiError } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { deleteObject } from '../../registry/delete';
import { flowcontrolSpecEqual } from '../../registry/flowcontrol/spec-equal';
import {
  AUTO_UPDATE_ANNOTATION, BootstrapFlowSchema, BootstrapPriorityLevelConfiguration, MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS, cloneBootstrapObject,
} from '../../registry/flowcontrol/bootstrap-configuration';

/** The manager Kubernetes' ensurer writes with. */
export const PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';

type Bootstrap = BootstrapFlowSchema | BootstrapPriorityLevelConfiguration;
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's strconv.ParseBool: undefined when the text is not a boolean. */
export function parseGoBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** shouldUpdateSpec: the annotation's boolean, else whether the operator has not touched the spec (generation 1). */
function shouldUpdateSpec(current: ApiObject): boolean {
  const parsed = parseGoBool(current.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION]);
  return parsed ?? current.metadata?.generation === 1;
}

/**
 * SpecEqualish: the bootstrap spec (already defaulted) against the stored one; for the
 * `exempt` level the stored `spec.exempt` is whatever the operator set, and only its absence
 * counts as a difference.
 */
export function specEqualish(bootstrap: Bootstrap, current: ApiObject): boolean {
  const actual = isObject(current.spec) ? current.spec : {};
  if (bootstrap.kind === 'PriorityLevelConfiguration' && bootstrap.metadata.name === 'exempt') {
    if (!isObject(actual.exempt)) return false;
    return flowcontrolSpecEqual({ ...bootstrap.spec, exempt: actual.exempt }, actual);
  }
  return flowcontrolSpecEqual(bootstrap.spec, actual);
}

/** ReviseIfNeeded: the object to write back, or undefined when the stored one is up to date. */
export function reviseIfNeeded(current: ApiObject, bootstrap: Bootstrap, mandatory: boolean): ApiObject | undefined {
  const autoUpdateSpec = mandatory || shouldUpdateSpec(current);
  const annotation = parseGoBool(current.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION]);
  const updateAnnotation = annotation !== autoUpdateSpec;
  const specChanged = autoUpdateSpec && !specEqualish(bootstrap, current);
  if (!updateAnnotation && !specChanged) return undefined;
  const revised: ApiObject = structuredClone(current);
  if (specChanged) revised.spec = structuredClone(bootstrap.spec);
  if (updateAnnotation) revised.metadata = { ...revised.metadata, annotations: { ...revised.metadata?.annotations, [AUTO_UPDATE_ANNOTATION]: String(autoUpdateSpec) } };
  return revised;
}

const isReason = (err: unknown, ...reasons: string[]) => err instanceof ApiError && reasons.includes(err.reason);

export interface EnsureTarget {
  store: GenericStore;
  /** The served apiVersion of the flavor (`flowcontrol.apiserver.k8s.io/v1`). */
  apiVersion: string;
  log: { info(msg: string, meta?: object): void };
}

const CTX = { namespace: undefined };
const OPTS = { dryRun: false, fieldManager: PRODUCER_FIELD_MANAGER };

/** EnsureConfiguration of one bootstrap object. */
export async function ensureOne(target: EnsureTarget, bootstrap: Bootstrap, mandatory: boolean): Promise<void> {
  const name = bootstrap.metadata.name;
  const kind = bootstrap.kind;
  let current: ApiObject | undefined;
  try {
    current = await target.store.get(undefined, name);
  } catch (err) {
    if (!isReason(err, 'NotFound')) throw err;
  }
  if (!current) {
    try {
      await target.store.create(CTX, { ...cloneBootstrapObject(bootstrap), apiVersion: target.apiVersion } as unknown as ApiObject, OPTS);
      target.log.info(`created ${kind}`, { type: mandatory ? 'mandatory' : 'suggested', name });
    } catch (err) {
      if (!isReason(err, 'AlreadyExists')) throw err;
    }
    return;
  }
  const revised = reviseIfNeeded(current, bootstrap, mandatory);
  if (!revised) return;
  try {
    await target.store.updateWith(CTX, name, revised, { ...OPTS, precondition: current.metadata?.resourceVersion });
    target.log.info(`updated ${kind}`, { type: mandatory ? 'mandatory' : 'suggested', name });
  } catch (err) {
    if (!isReason(err, 'Conflict', 'NotFound')) throw err;
  }
}

/** RemoveUnwantedObjects: stored objects the bootstrap does not name, annotated autoupdate true. */
async function removeUnwanted(target: EnsureTarget, wanted: Set<string>): Promise<void> {
  const list = await target.store.storage.range(target.store.collectionPrefix());
  for (const kv of list.kvs) {
    const obj = await target.store.currentOf(kv);
    const name = obj.metadata?.name ?? '';
    if (wanted.has(name) || parseGoBool(obj.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION]) !== true) continue;
    try {
      await deleteObject(target.store, CTX, name, {}, OPTS);
      target.log.info(`deleted the unwanted ${obj.kind ?? 'object'}`, { name });
    } catch (err) {
      if (!isReason(err, 'NotFound', 'Conflict')) throw err;
    }
  }
}

/** One pass of Kubernetes' ensure(): suggested, then mandatory, then the unwanted removed. */
export async function ensureBootstrapConfiguration(flowSchemas: EnsureTarget, priorityLevels: EnsureTarget): Promise<void> {
  for (const pl of SUGGESTED_PRIORITY_LEVELS) await ensureOne(priorityLevels, pl, false);
  for (const fs of SUGGESTED_FLOW_SCHEMAS) await ensureOne(flowSchemas, fs, false);
  for (const pl of MANDATORY_PRIORITY_LEVELS) await ensureOne(priorityLevels, pl, true);
  for (const fs of MANDATORY_FLOW_SCHEMAS) await ensureOne(flowSchemas, fs, true);
  const names = (list: readonly Bootstrap[]) => new Set(list.map((o) => o.metadata.name));
  await removeUnwanted(flowSchemas, names([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]));
  await removeUnwanted(priorityLevels, names([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]));
}
