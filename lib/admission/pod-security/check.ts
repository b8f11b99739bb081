/**
 * What a Pod Security Standards check is: an id, the level it belongs to, and its revisions by
 * the first policy version (v1.<minor>) each applies to. Checks read Pod JSON defensively by
 * Kubernetes' field names (a field of the wrong shape counts as unset), and word their results
 * as Kubernetes' pod-security-admission does: a short reason and an optional detail.
 */
import type { Level } from './levels';

export type Obj = Record<string, unknown>;

export interface CheckResult {
  allowed: boolean;
  /** Always shown when not allowed, e.g. `host namespaces`. */
  reason?: string;
  /** Shown in parentheses after the reason for one pod, e.g. `hostNetwork=true`. */
  detail?: string;
}

export const ALLOWED: CheckResult = { allowed: true };

/** Flavor-dependent annotation names some checks read. */
export interface CheckNames {
  /** `seccomp.security.alpha.<labelDomain>/pod` */
  seccompPod: string;
  /** `container.seccomp.security.alpha.<labelDomain>/` */
  seccompContainerPrefix: string;
  /** `container.apparmor.security.beta.<labelDomain>/` */
  appArmorContainerPrefix: string;
}

export function checkNames(labelDomain: string): CheckNames {
  return {
    seccompPod: `seccomp.security.alpha.${labelDomain}/pod`,
    seccompContainerPrefix: `container.seccomp.security.alpha.${labelDomain}/`,
    appArmorContainerPrefix: `container.apparmor.security.beta.${labelDomain}/`,
  };
}

/** What a check reads: the pod's (or template's) metadata and spec. */
export interface PodView {
  annotations: Record<string, string>;
  spec: Obj;
}

export type CheckFn = (pod: PodView, names: CheckNames) => CheckResult;

export interface VersionedCheck {
  /** The first v1.<minor> policy version this revision applies to. */
  minMinor: number;
  check: CheckFn;
  /** Baseline checks this (restricted) revision replaces. */
  overrides?: string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** Strictly increasing minMinor. */
  versions: VersionedCheck[];
}

/** A plain object, or undefined for anything else (null, arrays, scalars). */
export function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Obj : undefined;
}

/** The plain objects of a list, or none when it is not a list. */
export function objs(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map((x) => obj(x) ?? {}) : [];
}

/** A string field, or '' when unset (Go's zero value). */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Set (Go: a non-nil pointer or slice): present and not null. */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function podSecurityContext(spec: Obj): Obj | undefined {
  return obj(spec.securityContext);
}

export interface ContainerView {
  name: string;
  securityContext?: Obj;
  raw: Obj;
}

/** Init containers, containers, then ephemeral containers, as Kubernetes visits them. */
export function containersOf(spec: Obj): ContainerView[] {
  return [...objs(spec.initContainers), ...objs(spec.containers), ...objs(spec.ephemeralContainers)]
    .map((c) => ({ name: str(c.name), securityContext: obj(c.securityContext), raw: c }));
}

/** The pod's spec.os.name is windows (restricted checks exempt such pods from 1.25 on). */
export function isWindowsPod(spec: Obj): boolean {
  return str(obj(spec.os)?.name) === 'windows';
}

/** `"a", "b"` */
export function joinQuote(items: readonly string[]): string {
  return items.length ? `"${items.join('", "')}"` : '';
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"` */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** A sorted copy, as Go's sets list their members. */
export function sorted(items: Iterable<string>): string[] {
  return [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's %q of a string: double quotes, with Go's escapes for quotes, backslashes and control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
