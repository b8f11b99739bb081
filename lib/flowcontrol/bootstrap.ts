/**
 * Kubernetes 1.32's bootstrap API priority and fairness configuration (k8s.io/apiserver
 * pkg/apis/flowcontrol/bootstrap/default.go): the mandatory and suggested FlowSchemas and
 * PriorityLevelConfigurations (the data is lib/registry/flowcontrol's, which the configuration
 * keeper creates the objects from). The dispatcher works from these until the stores hold the
 * objects (the first moments after start, or a server without the flowcontrol kinds), and
 * supplies the mandatory `exempt` and `catch-all` ones whenever they are missing, as kube does.
 */
import type { FlowSchema, PriorityLevelConfiguration } from './types';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
} from '../registry/flowcontrol/bootstrap-configuration';

export const BOOTSTRAP_MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = MANDATORY_PRIORITY_LEVELS;
export const BOOTSTRAP_MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = MANDATORY_FLOW_SCHEMAS;
export const BOOTSTRAP_SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = SUGGESTED_PRIORITY_LEVELS;
export const BOOTSTRAP_SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = SUGGESTED_FLOW_SCHEMAS;

/** The whole bootstrap configuration: what a fresh kube-apiserver creates. */
export function bootstrapConfiguration(): { flowSchemas: FlowSchema[]; priorityLevels: PriorityLevelConfiguration[] } {
  return {
    flowSchemas: [...BOOTSTRAP_MANDATORY_FLOW_SCHEMAS, ...BOOTSTRAP_SUGGESTED_FLOW_SCHEMAS],
    priorityLevels: [...BOOTSTRAP_MANDATORY_PRIORITY_LEVELS, ...BOOTSTRAP_SUGGESTED_PRIORITY_LEVELS],
  };
}
