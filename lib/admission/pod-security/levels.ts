/**
 * Pod Security Standards levels and policy versions, and how a namespace's labels
 * (`pod-security.<labelDomain>/enforce`, `-version`, `audit`, `warn`, ...) resolve to the policy
 * evaluated for it, as Kubernetes' pod-security-admission `api` package does.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';

export type Level = 'privileged' | 'baseline' | 'restricted';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** `latest`, or a `v1.<minor>` policy version. */
export type Version = { latest: true } | { latest: false; minor: number };

export const LATEST: Version = { latest: true };

export const v1 = (minor: number): Version => ({ latest: false, minor });

export interface LevelVersion {
  level: Level;
  version: Version;
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export type Mode = keyof Policy;

export const MODES: readonly Mode[] = ['enforce', 'audit', 'warn'];

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** `restricted:latest`, `baseline:v1.23`: how Kubernetes names a level and version in messages. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameVersion(a: Version, b: Version): boolean {
  return a.latest ? b.latest : !b.latest && a.minor === b.minor;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

/** Both privileged (whatever their versions), or the same level and version. */
export function equivalentLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export function equivalentPolicy(a: Policy, b: Policy): boolean {
  return MODES.every((m) => equivalentLevelVersion(a[m], b[m]));
}

export function fullyPrivileged(p: Policy): boolean {
  return MODES.every((m) => p[m].level === 'privileged');
}

/** 0 when equal, -1 when a is less strict than b, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

/** The level, or `restricted` with an error for anything else (fail closed). */
export function parseLevel(value: string): { level: Level; error?: string } {
  return (LEVELS as readonly string[]).includes(value) ? { level: value as Level } : { level: 'restricted', error: LEVEL_ERROR };
}

const VERSION_RE = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `latest` or `v1.<minor>`; anything else is latest with an error. */
export function parseVersion(value: string): { version: Version; error?: string } {
  if (value === 'latest') return { version: LATEST };
  const m = VERSION_RE.exec(value);
  // Go's Atoi fails past 64 bits; such a minor is as unusable as a malformed one.
  const minor = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(minor)) return { version: LATEST, error: VERSION_ERROR };
  return { version: v1(minor) };
}

/** The six label names of a flavor's label domain. */
export interface PolicyLabels {
  enforce: string;
  enforceVersion: string;
  audit: string;
  auditVersion: string;
  warn: string;
  warnVersion: string;
}

export function policyLabels(labelDomain: string): PolicyLabels {
  const p = `pod-security.${labelDomain}/`;
  return {
    enforce: `${p}enforce`, enforceVersion: `${p}enforce-version`,
    audit: `${p}audit`, auditVersion: `${p}audit-version`,
    warn: `${p}warn`, warnVersion: `${p}warn-version`,
  };
}

/**
 * The policy a namespace's labels ask for, over the configured defaults. A policy is always
 * returned: an unparsable enforce level is restricted, unparsable audit and warn levels are
 * privileged, an unparsable version is latest; each bad label is a field error. An enforce level
 * stricter than warn's raises warn to it unless warn is labelled.
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy, names: PolicyLabels):
  { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels || !Object.keys(labels).length) return { policy: p, errors };
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
  const bad = (label: string, value: string, error?: string) => {
    if (error) errors.push(fieldErrors.invalid(`metadata.labels[${label}]`, value, error));
    return !!error;
  };
  let hasEnforceLevel = false;
  if (has(names.enforce)) {
    const r = parseLevel(labels[names.enforce]);
    p.enforce.level = r.level;
    hasEnforceLevel = !bad(names.enforce, labels[names.enforce], r.error);
  }
  if (has(names.enforceVersion)) {
    const r = parseVersion(labels[names.enforceVersion]);
    p.enforce.version = r.version;
    bad(names.enforceVersion, labels[names.enforceVersion], r.error);
  }
  if (has(names.audit)) {
    const r = parseLevel(labels[names.audit]);
    p.audit.level = bad(names.audit, labels[names.audit], r.error) ? 'privileged' : r.level;
  }
  if (has(names.auditVersion)) {
    const r = parseVersion(labels[names.auditVersion]);
    p.audit.version = r.version;
    bad(names.auditVersion, labels[names.auditVersion], r.error);
  }
  const hasWarnLevel = has(names.warn);
  if (hasWarnLevel) {
    const r = parseLevel(labels[names.warn]);
    p.warn.level = bad(names.warn, labels[names.warn], r.error) ? 'privileged' : r.level;
  }
  const hasWarnVersion = has(names.warnVersion);
  if (hasWarnVersion) {
    const r = parseVersion(labels[names.warnVersion]);
    p.warn.version = r.version;
    bad(names.warnVersion, labels[names.warnVersion], r.error);
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!hasWarnVersion) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
