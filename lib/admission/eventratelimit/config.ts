/**
 * The EventRateLimit configuration: kind `Configuration` of
 * `eventratelimit.admission.<domain>/v1alpha1` (either flavor's group is read) with `limits`, each
 * `{type: Server|Namespace|User|SourceAndObject, qps, burst, cacheSize}`. Validated as Kubernetes'
 * ValidateConfiguration does, with its field paths and messages (several problems are joined as
 * Go's aggregate error prints them); a bad or missing configuration stops the start, as the
 * plugin's initialization fails in Kubernetes (without a file its limits are empty: "must not be
 * empty"). cacheSize 0 (or absent) takes the default, 4096.
 */
import { flavors } from '../../naming';

export type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

export interface EventLimit { type: LimitType; qps: number; burst: number; cacheSize: number }

/** Kubernetes' defaultCacheSize, for a limit without one. */
export const DEFAULT_CACHE_SIZE = 4096;

const GROUPS = [flavors.orch, flavors.kubernetes].map((n) => n.group('eventratelimit.admission'));
/** In Kubernetes' declaration order (its message lists them in map order, which Go randomises). */
const LIMIT_TYPES: LimitType[] = ['Server', 'Namespace', 'User', 'SourceAndObject'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A number field as the Go int32 it decodes to; a wrong type is a decode error. */
function int32(limit: Record<string, unknown>, field: string, at: string): number {
  const v = limit[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw new Error(`${at}.${field}: must be a 32-bit integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** The field errors of ValidateConfiguration, as `path: message`. */
function validate(limits: EventLimit[], given: boolean): string[] {
  const errs: string[] = [];
  // Go's %#v of the slice: nil when the file has no limits, empty when it has `limits: []`.
  if (!limits.length) errs.push(`limits: Invalid value: []eventratelimit.Limit${given ? '{}' : '(nil)'}: must not be empty`);
  limits.forEach((l, i) => {
    const at = `limits[${i}]`;
    if (!LIMIT_TYPES.includes(l.type)) {
      errs.push(`${at}.type: Unsupported value: ${JSON.stringify(l.type)}: supported values: ${LIMIT_TYPES.map((t) => JSON.stringify(t)).join(', ')}`);
    }
    if (l.burst <= 0) errs.push(`${at}.burst: Invalid value: ${l.burst}: must be positive`);
    if (l.qps <= 0) errs.push(`${at}.qps: Invalid value: ${l.qps}: must be positive`);
    if (l.type !== 'Server' && l.cacheSize < 0) errs.push(`${at}.cacheSize: Invalid value: ${l.cacheSize}: must not be negative`);
  });
  return errs;
}

/** Reads and validates the plugin's section of --admission-control-config-file. */
export function readEventRateLimitConfig(config: unknown): EventLimit[] {
  let raw: unknown[] = [];
  if (config !== undefined && config !== null) {
    if (!isObject(config)) throw new Error('the EventRateLimit configuration must be an object');
    const [group, version] = String(config.apiVersion ?? '').split('/');
    if (config.kind !== 'Configuration' || !GROUPS.includes(group) || version !== 'v1alpha1') {
      throw new Error(`expected kind Configuration of ${GROUPS[0]}/v1alpha1, got ${JSON.stringify(config.kind)} of ${JSON.stringify(config.apiVersion)}`);
    }
    if (config.limits !== undefined && config.limits !== null && !Array.isArray(config.limits)) throw new Error('limits: must be a list');
    raw = (config.limits as unknown[] | undefined) ?? [];
  }
  const limits = raw.map((entry, i): EventLimit => {
    const at = `limits[${i}]`;
    if (!isObject(entry)) throw new Error(`${at}: must be an object`);
    if (entry.type !== undefined && typeof entry.type !== 'string') throw new Error(`${at}.type: must be a string`);
    return { type: (entry.type ?? '') as LimitType, qps: int32(entry, 'qps', at), burst: int32(entry, 'burst', at), cacheSize: int32(entry, 'cacheSize', at) };
  });
  const errs = validate(limits, isObject(config) && Array.isArray(config.limits));
  // Go's aggregate error: one error alone, several in brackets.
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return limits;
}
