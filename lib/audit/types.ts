/**
 * The audit vocabulary: the Event the server records (`audit.<domain>/v1` Event, Kubernetes'
 * audit.k8s.io/v1 shape), the Policy that decides each request's level, and the backend
 * contract the log file and the webhook implement.
 */
import type { AuditLevel } from '../meta/audit-annotations';

export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = typeof AUDIT_STAGES[number];

/** authentication's UserInfo as the Event spells it. */
export interface AuditUserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** One stage of one request, in the field order of Kubernetes' Event. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: AuditLevel;
  /** One id per request, shared by its stages (the `Audit-ID` response header). */
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  /** A Status: code always; message and reason on failures. */
  responseStatus?: { metadata: Record<string, never>; status?: string; message?: string; reason?: string; code: number };
  requestObject?: unknown;
  responseObject?: unknown;
  /** RFC 3339 with microseconds, as metav1.MicroTime. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** A group's resources, optionally named objects (`resources: [pods/log]`, `resourceNames`). */
export interface AuditGroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/**
 * Where events go. processEvents must not block the request nor throw: a backend that cannot
 * keep up counts and logs what it drops (apiserver_audit_error_total).
 */
export interface AuditBackend {
  /** `log` or `webhook` (the `plugin` label of the audit error metric). */
  readonly name: string;
  processEvents(events: AuditEvent[]): void;
  /** Sends what is buffered (bounded by its own timeout) and stops. */
  shutdown(): Promise<void>;
}
