/**
 * What the generic store hands admission, and what it asks of it: the attributes of one write
 * (operation, resource, object, old object, options, user) and the two phases, mutating (admit)
 * and validating (validate). The chain of plugins that answers (lib/admission/interfaces.ts
 * AdmissionChain) stands above the store; the store knows only this seam.
 */
import type { ApiObject, ResourceDef, StrategyContext } from '../scheme/types';
import type { DeleteOptions } from './options';
import type { UserInfo } from '../meta/user';
import type { RequestReads } from './request-reads';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  /** The resource as served (group, version, kind, resource, namespaced). */
  resource: ResourceDef;
  subresource?: string;
  namespace?: string;
  /** Empty on a create with generateName before the name is drawn. */
  name: string;
  /** The object being written: CREATE and UPDATE (mutating plugins may change it in place). */
  object?: ApiObject;
  /** The stored object: UPDATE and DELETE. */
  oldObject?: ApiObject;
  dryRun: boolean;
  /** The field manager of a create or update (CreateOptions / UpdateOptions). */
  fieldManager?: string;
  /** The options of a DELETE. */
  deleteOptions?: DeleteOptions;
  /** user (absent: the server's own write), warn, annotate. */
  ctx: StrategyContext;
  /**
   * Reinvocation state of the mutating phase (chain.ts): a plugin that wants the mutating
   * plugins run once more after it changed the object sets `reinvoke`; in the second round
   * `isReinvoke` is true. Plugins keep their own per-request state in `state`.
   */
  reinvocation?: { reinvoke: boolean; isReinvoke: boolean; state: Map<string, unknown> };
  /**
   * Set by the store on a CREATE or UPDATE: a validating plugin adds what is to run once the
   * write it admitted has happened or failed (the quota plugin's in-flight charges).
   */
  afterWrite?: Array<() => void>;
  /** The request's current reads, when its handler shares them with admission (TokenRequest). */
  reads?: RequestReads;
}

/** Admission as the store calls it, before the one etcd write; a rejection is a thrown ApiError. */
export interface Admission {
  admit(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

/** The identity of the server's own in-process writes, as kube-apiserver's loopback client. */
export const LOOPBACK_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

/** The user a write is made as: the request's, or the loopback identity for in-process writes. */
export function userOf(attrs: AdmissionAttributes): UserInfo {
  return attrs.ctx.user ?? LOOPBACK_USER;
}

/** `resource` or `resource.group`, as Kubernetes names a GroupResource in messages. */
export function groupResourceOf(attrs: AdmissionAttributes): string {
  const r = attrs.resource;
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}
