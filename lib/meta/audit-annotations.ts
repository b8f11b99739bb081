/**
 * Audit levels and the per-request audit annotations. Anything handling a request (authorization,
 * admission plugins and webhooks, deprecation) records annotations here; the audit filter
 * (lib/audit) copies into the event those whose level the event reaches. An annotation recorded
 * with level Request (a webhook's patch) is left out of a Metadata event, as Kubernetes'
 * `AddAnnotationWithLevel`.
 */

export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = typeof AUDIT_LEVELS[number];

/** Whether `level` is `min` or more detailed. */
export function levelAtLeast(level: AuditLevel, min: AuditLevel): boolean {
  return AUDIT_LEVELS.indexOf(level) >= AUDIT_LEVELS.indexOf(min);
}

export interface RecordedAnnotation {
  value: string;
  /** The least event level that carries it. */
  level: AuditLevel;
}

/** Where a request's annotations live: `ctx.state` (Koa) or any per-request state object. */
export type AnnotationState = { auditAnnotations?: Record<string, RecordedAnnotation> };

/** Records `key`; a later value for the same key replaces the earlier one. */
export function addAuditAnnotation(state: AnnotationState, key: string, value: string, level: AuditLevel = 'Metadata'): void {
  (state.auditAnnotations ??= {})[key] = { value, level };
}

/** The annotations an event at `eventLevel` carries (none at level None). */
export function auditAnnotationsFor(state: AnnotationState, eventLevel: AuditLevel): Record<string, string> | undefined {
  const all = state.auditAnnotations;
  if (!all || eventLevel === 'None') return undefined;
  let out: Record<string, string> | undefined;
  for (const [k, a] of Object.entries(all)) if (levelAtLeast(eventLevel, a.level)) (out ??= {})[k] = a.value;
  return out;
}
