/**
 * Kubernetes' priority order of version names (apimachinery pkg/version/helpers.go
 * CompareKubeAwareVersionStrings): GA before beta before alpha before names that are not
 * Kubernetes-like; within a kind the higher major, then the higher minor first
 * (`v2, v1, v1beta2, v1beta1, v1alpha1`); other names in lexical order (`foo1` before `foo10`).
 * Custom resource groups list their versions in this order, the first being preferred.
 */

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const TYPE_RANK: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

interface KubeVersion { major: number; rank: number; minor: number }

function parse(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = m[2] ? Number(m[3]) : 0;
  // Go's Atoi refuses what does not fit an int; such a name is not Kubernetes-like.
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor)) return undefined;
  return { major, rank: TYPE_RANK[m[2] ?? ''], minor };
}

/** Positive when `a` has the higher priority, negative when `b` has, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.rank !== pb.rank) return pa.rank - pb.rank;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

/** `versions` sorted highest priority first (a new array). */
export function sortByKubeVersionPriority(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareKubeAwareVersions(b, a));
}
