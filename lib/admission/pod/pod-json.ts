/**
 * Defensive reads of Pod JSON by Kubernetes' field names, for the Pod admission plugins: the
 * object may carry any shape a client sent (a plugin runs before the kind's validation), so
 * every accessor answers an empty value for a missing or mistyped field, never throws.
 */
import { ApiObject } from '../../scheme/types';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field, or '' (Go's zero value). */
export const str = (o: Json | undefined, key: string): string => (o && typeof o[key] === 'string' ? (o[key] as string) : '');

/** An object field, or undefined. */
export const obj = (o: Json | undefined, key: string): Json | undefined => (o && isObject(o[key]) ? (o[key] as Json) : undefined);

/** The object entries of a list field (the live entries: changing them changes the pod). */
export const objects = (o: Json | undefined, key: string): Json[] =>
  (o && Array.isArray(o[key]) ? (o[key] as unknown[]).filter(isObject) : []);

/** A string map (labels, annotations, nodeSelector): its string values only. */
export function stringMap(o: Json | undefined, key: string): Record<string, string> {
  const m = obj(o, key);
  if (!m) return {};
  return Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/** The pod's spec, created when `create` (for plugins that write to it). */
export function podSpec(pod: ApiObject | undefined, create = false): Json {
  if (!pod) return {};
  if (isObject(pod.spec)) return pod.spec;
  if (!create) return {};
  pod.spec = {};
  return pod.spec as Json;
}

/** The pod's annotations. */
export const podAnnotations = (pod: ApiObject | undefined): Record<string, string> =>
  stringMap(pod?.metadata as Json | undefined, 'annotations');

export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

/** A container and its field path (`spec.initContainers[0]`). */
export interface ContainerAt { container: Json; path: string; list: ContainerList }

/**
 * The pod's containers in Kubernetes' visiting order (VisitContainersWithPath): init
 * containers, containers, then ephemeral containers; `lists` narrows it.
 */
export function podContainers(spec: Json, lists: ContainerList[] = ['initContainers', 'containers', 'ephemeralContainers']): ContainerAt[] {
  const out: ContainerAt[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    if (!lists.includes(list) || !Array.isArray(spec[list])) continue;
    (spec[list] as unknown[]).forEach((c, i) => {
      if (isObject(c)) out.push({ container: c, path: `spec.${list}[${i}]`, list });
    });
  }
  return out;
}
