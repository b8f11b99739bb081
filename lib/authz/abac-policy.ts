/**
 * The ABAC policy file (--authorization-policy-file), read as kube-apiserver reads it: one JSON
 * object per line, blank lines and `#` comments skipped. A line is a
 * `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {...}}`
 * (the `abac.authorization.orch.io` spelling is accepted too, in either flavor), or a legacy
 * unversioned policy (no apiVersion nor kind: Kubernetes' v0, with its broader defaults).
 * Stricter than Kubernetes where it would silently do something else: an unknown field, a value
 * of the wrong type or an unknown apiVersion is an error naming the line, not ignored (a
 * misspelt `namespace` would quietly turn a grant into another).
 */
import { readFileSync } from 'node:fs';
import { ALL_AUTHENTICATED } from '../meta/user';

/** One policy as the authorizer reads it (Kubernetes' internal abac.PolicySpec). */
export interface AbacPolicy {
  /** A user name; '' when the policy names none. */
  user: string;
  /** A group name; '' when the policy names none. */
  group: string;
  /** Matches only get, list and watch when true. */
  readonly: boolean;
  /** `*` for all groups; '' is the core group. */
  apiGroup: string;
  /** `*` for all resources. */
  resource: string;
  /** `*` for every namespace and cluster-scoped requests; '' only cluster-scoped ones. */
  namespace: string;
  /** `*`, an exact path, or a prefix ending in `*` (`/apis/*`). */
  nonResourcePath: string;
  /** 1-based line of the file, for messages. */
  line: number;
}

/** The apiVersions accepted for a versioned policy line (both flavors' domains). */
export const ABAC_API_VERSIONS: readonly string[] = ['kubernetes.io', 'orch.io'].map((d) => `abac.authorization.${d}/v1beta1`);

const SPEC_STRINGS = ['user', 'group', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const;
const V0_STRINGS = ['user', 'group', 'resource', 'namespace'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The fields of `o` that are not in `known`, as a message, or undefined. */
function unknownFields(o: Obj, known: readonly string[], where: string): string | undefined {
  const extra = Object.keys(o).filter((k) => !known.includes(k));
  return extra.length ? `unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => JSON.stringify(k)).join(', ')} in ${where}` : undefined;
}

/** Strings (absent or null: '') and the readonly boolean of `o`; throws naming a wrong type. */
function readFields<K extends string>(o: Obj, strings: readonly K[], prefix: string): Record<K, string> & { readonly: boolean } {
  const out = { readonly: false } as Record<K, string> & { readonly: boolean };
  for (const k of strings) {
    const v = o[k];
    if (v !== undefined && v !== null && typeof v !== 'string') throw new Error(`${prefix}${k} must be a string`);
    (out as Record<string, unknown>)[k] = v ?? '';
  }
  if (o.readonly !== undefined && o.readonly !== null) {
    if (typeof o.readonly !== 'boolean') throw new Error(`${prefix}readonly must be true or false`);
    out.readonly = o.readonly;
  }
  return out;
}

/** A v1beta1 line: `*` as user or group means every authenticated user (Kubernetes' conversion). */
function fromV1beta1(doc: Obj, line: number): AbacPolicy {
  const unknown = unknownFields(doc, ['apiVersion', 'kind', 'spec'], 'the policy');
  if (unknown) throw new Error(unknown);
  if (!ABAC_API_VERSIONS.includes(doc.apiVersion as string)) {
    throw new Error(`apiVersion ${JSON.stringify(doc.apiVersion ?? '')} is not one of ${ABAC_API_VERSIONS.join(', ')}`);
  }
  if (doc.kind !== 'Policy') throw new Error(`kind ${JSON.stringify(doc.kind ?? '')} is not Policy`);
  if (!isObj(doc.spec)) throw new Error('spec must be an object');
  const spec = doc.spec;
  const unknownSpec = unknownFields(spec, [...SPEC_STRINGS, 'readonly'], 'spec');
  if (unknownSpec) throw new Error(unknownSpec);
  const p: AbacPolicy = { ...readFields(spec, SPEC_STRINGS, 'spec.'), line };
  if (p.user === '*' || p.group === '*') [p.user, p.group] = ['', ALL_AUTHENTICATED];
  return p;
}

/**
 * A legacy unversioned line (Kubernetes' v0): no subject means every authenticated user, no
 * namespace every namespace, no resource every resource, every API group, and neither namespace
 * nor resource also every non-resource path.
 */
function fromV0(doc: Obj, line: number): AbacPolicy {
  const unknown = unknownFields(doc, [...V0_STRINGS, 'readonly'], 'the unversioned policy');
  if (unknown) throw new Error(unknown);
  const f = readFields(doc, V0_STRINGS, '');
  const p: AbacPolicy = { ...f, apiGroup: '*', namespace: f.namespace || '*', resource: f.resource || '*', nonResourcePath: '', line };
  if ((!f.user && !f.group) || f.user === '*' || f.group === '*') [p.user, p.group] = ['', ALL_AUTHENTICATED];
  if (!f.namespace && !f.resource) p.nonResourcePath = '*';
  return p;
}

/** One non-blank, non-comment line; throws an Error saying what is wrong with it. */
export function parsePolicyLine(text: string, line: number): { policy: AbacPolicy; legacy: boolean } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new Error('not a JSON object');
  const legacy = doc.apiVersion === undefined && doc.kind === undefined;
  return { policy: legacy ? fromV0(doc, line) : fromV1beta1(doc, line), legacy };
}

/**
 * Every policy of a file's text, in order. Throws `line N: <reason>` at the first bad line;
 * `warn` hears of policies that can match no one and of legacy lines.
 */
export function parsePolicyFile(content: string, warn: (message: string) => void = () => undefined): AbacPolicy[] {
  const policies: AbacPolicy[] = [];
  let legacyLines = 0;
  content.split('\n').forEach((raw, i) => {
    const text = raw.trim();
    if (!text || text.startsWith('#')) return;
    let parsed: ReturnType<typeof parsePolicyLine>;
    try {
      parsed = parsePolicyLine(text, i + 1);
    } catch (err) {
      throw new Error(`line ${i + 1}: ${(err as Error).message}`);
    }
    if (parsed.legacy) legacyLines++;
    if (!parsed.policy.user && !parsed.policy.group) warn(`line ${i + 1}: the policy names neither user nor group, so it matches no one`);
    policies.push(parsed.policy);
  });
  if (legacyLines) warn(`${legacyLines} unversioned (v0) polic${legacyLines > 1 ? 'ies' : 'y'}: write them as ${ABAC_API_VERSIONS[0]} Policy objects`);
  return policies;
}

/** Reads --authorization-policy-file; errors are one line naming the flag, the file and the line. */
export function readPolicyFile(file: string, warn: (message: string) => void = () => undefined): AbacPolicy[] {
  const where = `--authorization-policy-file ${file}`;
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${where}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parsePolicyFile(content, (m) => warn(`${where}: ${m}`));
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}
