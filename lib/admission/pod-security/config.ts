/**
 * The PodSecurity plugin's configuration: a PodSecurityConfiguration
 * (`pod-security.admission.config.orch.io/v1`, Kubernetes' `pod-security.admission.config.k8s.io`
 * spelling, and the older v1beta1/v1alpha1 with the same fields), decoded strictly and defaulted
 * and validated as Kubernetes does. No configuration: privileged:latest for every mode and no
 * exemptions.
 */
import { FieldError, fieldErrors, formatFieldError } from '../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../meta/validation';
import { aggregateMessage } from '../../authz/authorizer';
import { LATEST, Policy, parseLevel, parseVersion } from './levels';

export interface PodSecurityExemptions {
  usernames: string[];
  namespaces: string[];
  runtimeClasses: string[];
}

export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: PodSecurityExemptions;
}

export const DEFAULT_CONFIG: PodSecurityConfig = {
  defaults: {
    enforce: { level: 'privileged', version: LATEST },
    audit: { level: 'privileged', version: LATEST },
    warn: { level: 'privileged', version: LATEST },
  },
  exemptions: { usernames: [], namespaces: [], runtimeClasses: [] },
};

const GROUPS = ['pod-security.admission.config.orch.io', 'pod-security.admission.config.k8s.io'];
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];
const DEFAULT_FIELDS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'] as const;
const EXEMPTION_FIELDS = ['usernames', 'namespaces', 'runtimeClasses'] as const;

export class PodSecurityConfigError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownFields(o: Record<string, unknown>, known: readonly string[], prefix: string): string[] {
  return Object.keys(o).filter((k) => !known.includes(k)).map((k) => `unknown field "${prefix}${k}"`);
}

/** Strict decoding: the shape of every field, before defaults and validation. */
function decode(raw: Record<string, unknown>): { defaults: Record<string, string>; exemptions: Record<string, string[]> } {
  const problems = unknownFields(raw, ['apiVersion', 'kind', 'defaults', 'exemptions'], '');
  const defaults: Record<string, string> = {};
  const exemptions: Record<string, string[]> = {};
  const d = raw.defaults ?? {};
  if (!isObject(d)) problems.push('defaults: expected an object');
  else {
    problems.push(...unknownFields(d, DEFAULT_FIELDS, 'defaults.'));
    for (const f of DEFAULT_FIELDS) {
      if (d[f] === undefined || d[f] === null) continue;
      if (typeof d[f] !== 'string') problems.push(`defaults.${f}: expected a string`);
      else defaults[f] = d[f] as string;
    }
  }
  const e = raw.exemptions ?? {};
  if (!isObject(e)) problems.push('exemptions: expected an object');
  else {
    problems.push(...unknownFields(e, EXEMPTION_FIELDS, 'exemptions.'));
    for (const f of EXEMPTION_FIELDS) {
      const list = e[f] ?? [];
      if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) problems.push(`exemptions.${f}: expected a list of strings`);
      else exemptions[f] = list as string[];
    }
  }
  if (problems.length) throw new PodSecurityConfigError(`strict decoding error: ${problems.join(', ')}`);
  return { defaults, exemptions };
}

function validateNames(list: string[], path: string, check: (s: string) => string[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((name, i) => {
    const problems = check(name);
    if (problems?.length) errs.push(fieldErrors.invalid(`${path}[${i}]`, name, problems.join(', ')));
    else if (seen.has(name)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, name));
    else seen.add(name);
  });
  return errs;
}

/**
 * The configuration from the plugin's section of --admission-control-config-file (a parsed
 * object), or the default without one. Throws PodSecurityConfigError with one line otherwise.
 */
export function readPodSecurityConfig(raw: unknown): PodSecurityConfig {
  if (raw === undefined || raw === null) return DEFAULT_CONFIG;
  if (!isObject(raw)) throw new PodSecurityConfigError('expected a PodSecurityConfiguration object');
  const [group, version, extra] = String(raw.apiVersion ?? '').split('/');
  if (raw.kind !== 'PodSecurityConfiguration' || !GROUPS.includes(group) || !VERSIONS.includes(version) || extra !== undefined) {
    throw new PodSecurityConfigError(`expected kind PodSecurityConfiguration of ${GROUPS[0]}/v1, got ${JSON.stringify(raw.kind ?? '')} of ${JSON.stringify(raw.apiVersion ?? '')}`);
  }
  const { defaults, exemptions } = decode(raw);
  const errs: FieldError[] = [];
  const level = (f: 'enforce' | 'audit' | 'warn') => {
    const value = defaults[f] || 'privileged';
    const r = parseLevel(value);
    if (r.error) errs.push(fieldErrors.invalid(`defaults.${f}`, value, r.error));
    return r.level;
  };
  const ver = (f: 'enforce-version' | 'audit-version' | 'warn-version') => {
    const value = defaults[f] || 'latest';
    const r = parseVersion(value);
    if (r.error) errs.push(fieldErrors.invalid(`defaults.${f}`, value, r.error));
    return r.version;
  };
  // Kubernetes' validation order: enforce, warn, audit.
  const enforce = { level: level('enforce'), version: ver('enforce-version') };
  const warn = { level: level('warn'), version: ver('warn-version') };
  const audit = { level: level('audit'), version: ver('audit-version') };
  const ex: PodSecurityExemptions = {
    namespaces: exemptions.namespaces ?? [], runtimeClasses: exemptions.runtimeClasses ?? [], usernames: exemptions.usernames ?? [],
  };
  errs.push(...validateNames(ex.namespaces, 'exemptions.namespaces', isDns1123Label));
  errs.push(...validateNames(ex.runtimeClasses, 'exemptions.runtimeClasses', isDns1123Subdomain));
  errs.push(...validateNames(ex.usernames, 'exemptions.usernames', (u) => (u === '' ? ['username must not be empty'] : undefined)));
  if (errs.length) throw new PodSecurityConfigError(`PodSecurity invalid: ${aggregateMessage(errs.map(formatFieldError))}`);
  return { defaults: { enforce, audit, warn }, exemptions: ex };
}
