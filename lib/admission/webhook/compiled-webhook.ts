/**
 * One webhook entry of a stored Mutating/ValidatingWebhookConfiguration (v1 form), read once when
 * the configuration changes into what matching and calling need: selectors parsed, defaults of
 * the v1 API filled for anything missing (stored objects were defaulted by their version at
 * write time, so this only guards against hand-written etcd data).
 */
import { LabelSelector, labelSelectorFromObject } from '../../meta/label-selector';
import { formatFieldError } from '../../meta/field-errors';
import { ApiObject } from '../../scheme/types';
import type { CelProgram } from '../../cel';
import { compileMatchCondition } from '../../registry/admissionregistration/match-conditions';

export type FailurePolicy = 'Fail' | 'Ignore';
export type SideEffects = 'Unknown' | 'None' | 'Some' | 'NoneOnDryRun';

/** admissionregistration/v1 RuleWithOperations. */
export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** `Cluster`, `Namespaced` or `*` (absent: `*`). */
  scope: string;
}

/** admissionregistration/v1 WebhookClientConfig. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** Decoded PEM of caBundle; empty: the system roots. */
  caBundle?: string;
}

/** One matchCondition as read from the configuration: compiled, or why it could not be (then an evaluation error). */
export interface CompiledMatchCondition {
  name: string;
  expression: string;
  program?: CelProgram;
  compileError?: string;
}

/** A selector as parsed, or why it could not be (answered as an internal error when it matters). */
export type ParsedSelector = { selector: LabelSelector; empty: boolean } | { error: string };

export interface CompiledWebhook {
  /** `<configuration>/<webhook>/<index>`: stable across reads of the same configuration. */
  uid: string;
  name: string;
  configurationName: string;
  /** Position in the sorted list of every webhook of this kind (Kubernetes' hook index). */
  order: number;
  rules: WebhookRule[];
  namespaceSelector: ParsedSelector;
  objectSelector: ParsedSelector;
  matchPolicy: 'Exact' | 'Equivalent';
  failurePolicy: FailurePolicy;
  sideEffects: SideEffects;
  timeoutSeconds: number;
  reinvocationPolicy: 'Never' | 'IfNeeded';
  admissionReviewVersions: string[];
  clientConfig: WebhookClientConfig;
  /** CEL matchConditions, compiled once per read of the configuration (match-conditions.ts evaluates them). */
  matchConditions: CompiledMatchCondition[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const oneOf = <T extends string>(v: unknown, allowed: readonly T[], dflt: T): T => (allowed.includes(v as T) ? v as T : dflt);

function parseSelector(raw: unknown, path: string): ParsedSelector {
  if (raw === undefined || raw === null) return { selector: { requirements: [] }, empty: true };
  const { selector, errors } = labelSelectorFromObject(raw, path);
  if (!selector) return { error: errors.map(formatFieldError).join(', ') || `${path} is invalid` };
  return { selector, empty: selector.requirements.length === 0 };
}

function clientConfigOf(raw: unknown): WebhookClientConfig {
  const cc = isObj(raw) ? raw : {};
  const out: WebhookClientConfig = {};
  if (typeof cc.url === 'string' && cc.url) out.url = cc.url;
  if (isObj(cc.service)) {
    const s = cc.service;
    out.service = {
      namespace: String(s.namespace ?? ''), name: String(s.name ?? ''),
      path: typeof s.path === 'string' ? s.path : undefined,
      port: typeof s.port === 'number' ? s.port : undefined,
    };
  }
  if (typeof cc.caBundle === 'string' && cc.caBundle) out.caBundle = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  return out;
}

function rulesOf(raw: unknown): WebhookRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((r) => ({
    operations: strings(r.operations), apiGroups: strings(r.apiGroups), apiVersions: strings(r.apiVersions),
    resources: strings(r.resources), scope: typeof r.scope === 'string' && r.scope ? r.scope : '*',
  }));
}

/** The conditions of a stored webhook entry (validated when written; one that no longer compiles errs when evaluated). */
function compileMatchConditions(raw: unknown): CompiledMatchCondition[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((c) => {
    const name = String(c.name ?? '');
    const expression = typeof c.expression === 'string' ? c.expression : '';
    const r = compileMatchCondition(expression.trim());
    return r.ok ? { name, expression, program: r.program } : { name, expression, compileError: r.error };
  });
}

/** The webhooks of one configuration object, in their order; `mutating` reads reinvocationPolicy. */
export function compileConfiguration(config: ApiObject, mutating: boolean): CompiledWebhook[] {
  const configurationName = String(config.metadata?.name ?? '');
  const hooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  return hooks.filter(isObj).map((h, i) => {
    const timeout = typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10;
    return {
      uid: `${configurationName}/${String(h.name ?? '')}/${i}`,
      name: String(h.name ?? ''),
      configurationName,
      order: 0,
      rules: rulesOf(h.rules),
      namespaceSelector: parseSelector(h.namespaceSelector, 'namespaceSelector'),
      objectSelector: parseSelector(h.objectSelector, 'objectSelector'),
      matchPolicy: oneOf(h.matchPolicy, ['Exact', 'Equivalent'] as const, 'Equivalent'),
      failurePolicy: oneOf(h.failurePolicy, ['Fail', 'Ignore'] as const, 'Fail'),
      sideEffects: oneOf(h.sideEffects, ['Unknown', 'None', 'Some', 'NoneOnDryRun'] as const, 'Unknown'),
      // The API allows 1..30; anything else here is clamped rather than trusted.
      timeoutSeconds: Math.min(30, Math.max(1, Math.floor(timeout))),
      reinvocationPolicy: mutating ? oneOf(h.reinvocationPolicy, ['Never', 'IfNeeded'] as const, 'Never') : 'Never',
      admissionReviewVersions: strings(h.admissionReviewVersions),
      clientConfig: clientConfigOf(h.clientConfig),
      matchConditions: compileMatchConditions(h.matchConditions),
    };
  });
}
