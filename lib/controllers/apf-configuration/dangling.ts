/**
 * The FlowSchema status condition API priority and fairness' config consumer keeps
 * (apf_controller.go): `Dangling` True with reason NotFound while the named
 * PriorityLevelConfiguration does not exist, False with reason Found once it does.
 */
import { ApiObject } from '../../scheme/types';

/** The manager Kubernetes' config consumer writes FlowSchema status with. */
export const CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

export interface FlowSchemaCondition {
  type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string;
}
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function priorityLevelNameOf(fs: ApiObject): string {
  const spec = isObject(fs.spec) ? fs.spec : {};
  const ref = isObject(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration : {};
  return typeof ref.name === 'string' ? ref.name : '';
}

export function conditionsOf(fs: ApiObject): FlowSchemaCondition[] {
  const status = isObject(fs.status) ? fs.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) as unknown as FlowSchemaCondition[] : [];
}

/** The Dangling condition `fs` should carry (without its lastTransitionTime). */
export function desiredDangling(fs: ApiObject, levelExists: boolean): FlowSchemaCondition {
  const name = priorityLevelNameOf(fs);
  return levelExists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(name)} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(name)} but there is no such object` };
}

/** Whether the stored Dangling condition already says what `want` says (status, reason and message). */
export function danglingUpToDate(fs: ApiObject, want: FlowSchemaCondition): boolean {
  const have = conditionsOf(fs).find((c) => c.type === 'Dangling');
  return !!have && have.status === want.status && have.reason === want.reason && have.message === want.message;
}

/** `fs` with its Dangling condition set to `want`, stamped `now`; other conditions kept. */
export function withDangling(fs: ApiObject, want: FlowSchemaCondition, now: string): ApiObject {
  const others = conditionsOf(fs).filter((c) => c.type !== 'Dangling');
  const status = isObject(fs.status) ? fs.status : {};
  return { ...fs, status: { ...status, conditions: [...others, { ...want, lastTransitionTime: now }] } };
}
