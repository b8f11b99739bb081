/**
 * Toleration arithmetic shared by the toleration plugins, as Kubernetes' scheduler helpers do
 * it: one toleration covering another (isSuperset), merging two lists without redundant
 * entries, checking a list against a whitelist, and adding-or-replacing one toleration.
 * Tolerations are plain JSON; absent fields are Go's zero values.
 */
import { Json, isObject, str } from './pod-json';

/** A toleration as the plugins compare it. */
export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number | null }

const seconds = (t: Toleration): number | undefined => (typeof t.tolerationSeconds === 'number' ? t.tolerationSeconds : undefined);

/** Go's DeepEqual of two tolerations (absent and empty string are the same). */
export function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '')
    && (a.effect ?? '') === (b.effect ?? '') && seconds(a) === seconds(b);
}

/** Whether `ss` tolerates every taint `t` tolerates. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  const ssKey = ss.key ?? '';
  // An empty key with operator Exists matches every key.
  if ((t.key ?? '') !== ssKey && (ssKey !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && seconds(ss) !== undefined) {
    const mine = seconds(t);
    if (mine === undefined || mine > seconds(ss)!) return false;
  }
  switch (ss.operator ?? '') {
    // An empty operator means Equal.
    case 'Equal': case '':
      return (t.operator || 'Equal') === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** MergeTolerations: `first` then `second`, dropping any toleration another one covers. */
export function mergeTolerations(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    // Of two equal tolerations the first is kept.
    if (all.slice(i + 1).some((later) => !sameToleration(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** VerifyAgainstWhitelist: every toleration is covered by some whitelist entry. */
export function verifyAgainstWhitelist(tolerations: Toleration[], whitelist: Toleration[]): boolean {
  if (!whitelist.length || !tolerations.length) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

/** Tolerations are unique by key, effect, operator and value (MatchToleration). */
const sameIdentity = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');

/**
 * AddOrUpdateTolerationInPod: replaces the toleration with the same identity, or appends.
 * Returns the new list, or undefined when the pod already has exactly this toleration.
 */
export function addOrUpdateToleration(list: Toleration[], toleration: Toleration): Toleration[] | undefined {
  let updated = false;
  const out: Toleration[] = [];
  for (const t of list) {
    if (sameIdentity(toleration, t)) {
      if (sameToleration(toleration, t)) return undefined;
      out.push(toleration);
      updated = true;
      continue;
    }
    out.push(t);
  }
  if (!updated) out.push(toleration);
  return out;
}

/** The pod spec's tolerations (object entries). */
export function specTolerations(spec: Json): Toleration[] {
  return Array.isArray(spec.tolerations) ? (spec.tolerations as unknown[]).filter(isObject) as Toleration[] : [];
}

/** Reads one toleration from JSON (namespace annotations, plugin configuration). */
export function tolerationFrom(v: unknown): Toleration {
  const o = isObject(v) ? v : {};
  const t: Toleration = {};
  for (const k of ['key', 'operator', 'value', 'effect'] as const) if (str(o, k)) t[k] = str(o, k);
  if (typeof o.tolerationSeconds === 'number') t.tolerationSeconds = o.tolerationSeconds;
  return t;
}
