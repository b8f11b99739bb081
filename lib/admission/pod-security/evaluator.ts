/**
 * Runs the checks of a level at a policy version, as Kubernetes' check registry does: the
 * revision of each check current at that version, baseline checks then restricted ones (each
 * group by id, in byte order), restricted revisions replacing the baseline checks they override.
 * Versions newer than the newest revision (and `latest`) evaluate as that newest version.
 */
import { Check, CheckFn, CheckNames, CheckResult, PodView, checkNames, sorted } from './check';
import { BASELINE_CHECKS } from './checks-baseline';
import { RESTRICTED_CHECKS } from './checks-restricted';
import { LevelVersion } from './levels';

export interface AggregateResult {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

/** `host namespaces, privileged`: the reasons alone (a namespace's existing pods). */
export function forbiddenReason(r: AggregateResult): string {
  return r.reasons.join(', ');
}

/** `host namespaces (hostNetwork=true), privileged (container "c" must not ...)`: one pod. */
export function forbiddenDetail(r: AggregateResult): string {
  return r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');
}

export function aggregate(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || 'unknown forbidden reason');
    details.push(r.detail ?? '');
  }
  return { allowed: !reasons.length, reasons, details };
}

const ALL_CHECKS: readonly Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS];

/** The newest minor any check has a revision for: later versions and `latest` are evaluated as it. */
export const MAX_POLICY_MINOR = Math.max(...ALL_CHECKS.flatMap((c) => c.versions.map((v) => v.minMinor)));

function revisionAt(check: Check, minor: number) {
  let found;
  for (const v of check.versions) if (v.minMinor <= minor) found = v;
  return found;
}

function byId(checks: readonly Check[]): Check[] {
  const ids = sorted(checks.map((c) => c.id));
  return ids.map((id) => checks.find((c) => c.id === id)!);
}

/** The check functions of a level at a minor version, in evaluation order. */
function checksAt(level: 'baseline' | 'restricted', minor: number): CheckFn[] {
  const baseline = byId(BASELINE_CHECKS).map((c) => ({ id: c.id, rev: revisionAt(c, minor) })).filter((c) => c.rev);
  if (level === 'baseline') return baseline.map((c) => c.rev!.check);
  const restricted = byId(RESTRICTED_CHECKS).map((c) => revisionAt(c, minor)).filter((r) => r);
  const overridden = new Set(restricted.flatMap((r) => r!.overrides ?? []));
  return [...baseline.filter((c) => !overridden.has(c.id)).map((c) => c.rev!.check), ...restricted.map((r) => r!.check)];
}

/** Evaluates pods against levels and versions; one per label domain (the annotation names differ). */
export class Evaluator {
  private readonly names: CheckNames;
  private readonly cache = new Map<string, CheckFn[]>();

  constructor(labelDomain: string) {
    this.names = checkNames(labelDomain);
  }

  /** The results of every check of the level and version (none for privileged). */
  evaluate(lv: LevelVersion, pod: PodView): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const minor = lv.version.latest ? MAX_POLICY_MINOR : Math.min(lv.version.minor, MAX_POLICY_MINOR);
    const key = `${lv.level}:${minor}`;
    let fns = this.cache.get(key);
    if (!fns) this.cache.set(key, fns = checksAt(lv.level, minor));
    return fns.map((fn) => fn(pod, this.names));
  }

  evaluateAggregate(lv: LevelVersion, pod: PodView): AggregateResult {
    return aggregate(this.evaluate(lv, pod));
  }
}
