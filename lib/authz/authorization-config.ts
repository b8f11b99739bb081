/**
 * --authorization-config: the AuthorizationConfiguration file (apiserver.config.orch.io, and
 * Kubernetes' apiserver.config.k8s.io; v1, v1beta1 and v1alpha1, as Kubernetes 1.32 reads them) read and validated as kube-apiserver does
 * (k8s.io/apiserver/pkg/apis/apiserver/validation ValidateAuthorizationConfiguration, then
 * pkg/kubeapiserver/authorizer LoadAndValidateData): an ordered list of authorizers of the
 * --authorization-mode types (only Webhook may repeat; the others must be named as their
 * lower-cased type), each Webhook with timeout, TTLs, SubjectAccessReview versions, failurePolicy,
 * connectionInfo and CEL matchConditions over `request`. A bad file is one error naming every
 * problem with Kubernetes' field paths and messages (Go's aggregate: one alone, several in brackets).
 */
import { statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { yaml } from '../lazy-packages';
import { CelProgram, celEnvironment, compile, CelEnvironment } from '../cel';
import { FieldError, child, fieldErrors, formatFieldError, index } from '../meta/field-errors';
import { isDns1123Subdomain } from '../meta/validation';
import { parseGoDuration } from '../meta/go-duration';
import { aggregateMessage } from './authorizer';

export const AUTHORIZER_TYPES = ['ABAC', 'AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'] as const;
export type AuthorizerType = typeof AUTHORIZER_TYPES[number];
/** This server's group first (as its other configuration files), Kubernetes' read too. */
const CONFIG_GROUPS = ['apiserver.config.orch.io', 'apiserver.config.k8s.io'];
const CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];

export interface WebhookMatchCondition {
  expression: string;
  program: CelProgram;
}

export interface AuthorizerWebhookConfig {
  timeoutMs: number;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: 'NoOpinion' | 'Deny';
  connectionInfo: { type: 'KubeConfigFile'; kubeConfigFile: string } | { type: 'InClusterConfig' };
  matchConditions: WebhookMatchCondition[];
}

export interface AuthorizerConfig {
  type: AuthorizerType;
  name: string;
  webhook?: AuthorizerWebhookConfig;
}

export interface AuthorizationConfig {
  authorizers: AuthorizerConfig[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

let env: CelEnvironment | undefined;
/** The environment of authorization matchConditions: `request`, the SubjectAccessReview's spec. */
function authorizationEnvironment(): CelEnvironment {
  env ??= celEnvironment({ purpose: 'authorization', variables: [{ name: 'request', type: 'dyn' }] });
  return env;
}

/** Go's metav1.Duration in a file: a duration string; absent or unreadable is 0 (required). */
function durationMs(v: unknown): number {
  if (typeof v !== 'string' || !v) return 0;
  try {
    return parseGoDuration(v);
  } catch {
    return 0;
  }
}

/** Go's time.Duration.String() for what the messages show (whole seconds here). */
const showDuration = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

function validateMatchConditions(raw: unknown, at: string, errs: FieldError[]): WebhookMatchCondition[] {
  const list = Array.isArray(raw) ? raw : [];
  const path = child(at, 'matchConditions');
  if (list.length > 64) {
    errs.push(fieldErrors.tooMany(path, list.length, 64));
    return [];
  }
  const seen = new Set<string>();
  const out: WebhookMatchCondition[] = [];
  list.forEach((c, i) => {
    const fp = child(index(path, i), 'expression');
    const expression = isObj(c) && typeof c.expression === 'string' ? c.expression : '';
    if (!expression.trim()) return void errs.push(fieldErrors.required(fp, ''));
    if (seen.has(expression)) return void errs.push(fieldErrors.duplicate(fp, expression));
    seen.add(expression);
    const r = compile(authorizationEnvironment(), expression, { resultTypes: ['bool'] });
    if (!r.ok) return void errs.push(fieldErrors.invalid(fp, expression, r.error));
    if (r.program.outputType !== 'bool') return void errs.push(fieldErrors.invalid(fp, expression, 'must evaluate to bool'));
    out.push({ expression, program: r.program });
  });
  return out;
}

function validateWebhook(w: Obj, at: string, errs: FieldError[]): AuthorizerWebhookConfig {
  const timeoutMs = durationMs(w.timeout);
  if (timeoutMs === 0) errs.push(fieldErrors.required(child(at, 'timeout'), ''));
  else if (timeoutMs > 30_000 || timeoutMs < 0) errs.push(fieldErrors.invalid(child(at, 'timeout'), showDuration(timeoutMs), 'must be > 0s and <= 30s'));
  const authorizedTtlMs = durationMs(w.authorizedTTL);
  if (authorizedTtlMs === 0) errs.push(fieldErrors.required(child(at, 'authorizedTTL'), ''));
  const unauthorizedTtlMs = durationMs(w.unauthorizedTTL);
  if (unauthorizedTtlMs === 0) errs.push(fieldErrors.required(child(at, 'unauthorizedTTL'), ''));
  const sar = typeof w.subjectAccessReviewVersion === 'string' ? w.subjectAccessReviewVersion : '';
  if (!sar) errs.push(fieldErrors.required(child(at, 'subjectAccessReviewVersion'), ''));
  else if (sar !== 'v1' && sar !== 'v1beta1') errs.push(fieldErrors.notSupported(child(at, 'subjectAccessReviewVersion'), sar, ['v1', 'v1beta1']));
  const conditionsGiven = Array.isArray(w.matchConditions) && w.matchConditions.length > 0;
  const mcSar = typeof w.matchConditionSubjectAccessReviewVersion === 'string' ? w.matchConditionSubjectAccessReviewVersion : '';
  if (!mcSar) {
    if (conditionsGiven) errs.push(fieldErrors.required(child(at, 'matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
  } else if (mcSar !== 'v1') errs.push(fieldErrors.notSupported(child(at, 'matchConditionSubjectAccessReviewVersion'), mcSar, ['v1']));
  const failurePolicy = typeof w.failurePolicy === 'string' ? w.failurePolicy : '';
  if (!failurePolicy) errs.push(fieldErrors.required(child(at, 'failurePolicy'), ''));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errs.push(fieldErrors.notSupported(child(at, 'failurePolicy'), failurePolicy, ['NoOpinion', 'Deny']));
  const ci = isObj(w.connectionInfo) ? w.connectionInfo : {};
  const ciType = typeof ci.type === 'string' ? ci.type : '';
  const kubeConfigFile = typeof ci.kubeConfigFile === 'string' ? ci.kubeConfigFile : undefined;
  const ciPath = child(at, 'connectionInfo');
  if (!ciType) errs.push(fieldErrors.required(child(ciPath, 'type'), ''));
  else if (ciType === 'InClusterConfig') {
    if (kubeConfigFile !== undefined) errs.push(fieldErrors.invalid(child(ciPath, 'kubeConfigFile'), kubeConfigFile, 'can only be set when type=KubeConfigFile'));
  } else if (ciType === 'KubeConfigFile') {
    if (!kubeConfigFile) errs.push(fieldErrors.required(child(ciPath, 'kubeConfigFile'), ''));
    else if (!path.isAbsolute(kubeConfigFile)) errs.push(fieldErrors.invalid(child(ciPath, 'kubeConfigFile'), kubeConfigFile, 'must be an absolute path'));
    else {
      try {
        if (!statSync(kubeConfigFile).isFile()) errs.push(fieldErrors.invalid(child(ciPath, 'kubeConfigFile'), kubeConfigFile, 'must be a regular file'));
      } catch (e) {
        errs.push(fieldErrors.invalid(child(ciPath, 'kubeConfigFile'), kubeConfigFile, `error loading file: stat ${kubeConfigFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`));
      }
    }
  } else errs.push(fieldErrors.notSupported(child(ciPath, 'type'), ciType, ['InClusterConfig', 'KubeConfigFile']));
  const matchConditions = validateMatchConditions(w.matchConditions, at, errs);
  return {
    timeoutMs, authorizedTtlMs, unauthorizedTtlMs, subjectAccessReviewVersion: sar === 'v1beta1' ? 'v1beta1' : 'v1',
    matchConditionSubjectAccessReviewVersion: mcSar, failurePolicy: failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion',
    connectionInfo: ciType === 'InClusterConfig' ? { type: 'InClusterConfig' } : { type: 'KubeConfigFile', kubeConfigFile: kubeConfigFile ?? '' },
    matchConditions,
  };
}

/** The configuration in `data`, or an Error with kube's text. */
export function parseAuthorizationConfig(data: string): AuthorizationConfig {
  let doc: unknown;
  try {
    doc = yaml().parse(data);
  } catch (e) {
    throw new Error(`failed to load AuthorizationConfiguration from file: ${(e as Error).message.split('\n')[0]}`);
  }
  const o = isObj(doc) ? doc : {};
  const gv = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  if (o.kind !== 'AuthorizationConfiguration' || !CONFIG_GROUPS.includes(group) || !CONFIG_VERSIONS.includes(version)) {
    throw new Error(`failed to load AuthorizationConfiguration from file: no kind "${String(o.kind ?? '')}" is registered for version "${gv}" in scheme`);
  }
  const errs: FieldError[] = [];
  const list = Array.isArray(o.authorizers) ? o.authorizers : [];
  if (!list.length) errs.push(fieldErrors.required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const authorizers: AuthorizerConfig[] = [];
  list.forEach((raw, i) => {
    const a = isObj(raw) ? raw : {};
    const at = index('authorizers', i);
    const type = typeof a.type === 'string' ? a.type : '';
    if (!type) return void errs.push(fieldErrors.required(child(at, 'type'), ''));
    if (!(AUTHORIZER_TYPES as readonly string[]).includes(type)) return void errs.push(fieldErrors.notSupported(child(at, 'type'), type, [...AUTHORIZER_TYPES]));
    if (seenTypes.has(type) && type !== 'Webhook') return void errs.push(fieldErrors.duplicate(child(at, 'type'), type));
    seenTypes.add(type);
    const name = typeof a.name === 'string' ? a.name : '';
    if (!name) errs.push(fieldErrors.required(child(at, 'name'), ''));
    else if (seenNames.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    else {
      const bad = isDns1123Subdomain(name);
      if (bad.length) errs.push(fieldErrors.invalid(child(at, 'name'), name, `authorizer name is invalid: ${bad.join(', ')}`));
    }
    seenNames.add(name);
    const entry: AuthorizerConfig = { type: type as AuthorizerType, name };
    if (type === 'Webhook') {
      if (!isObj(a.webhook)) return void errs.push(fieldErrors.required(child(at, 'webhook'), 'required when type=Webhook'));
      entry.webhook = validateWebhook(a.webhook, child(at, 'webhook'), errs);
    } else if (a.webhook !== undefined && a.webhook !== null) {
      errs.push(fieldErrors.invalid(child(at, 'webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
    authorizers.push(entry);
  });
  if (errs.length) throw new Error(aggregateMessage(errs.map(formatFieldError)));
  // kube-apiserver's own rule: a non-webhook authorizer is named as its lower-cased type.
  const naming = authorizers.filter((a) => a.type !== 'Webhook' && a.name !== a.type.toLowerCase())
    .map((a) => `expected name ${a.type.toLowerCase()} for authorizer ${a.type} instead of ${a.name}`);
  if (naming.length) throw new Error(aggregateMessage(naming));
  return { authorizers };
}

/** Reads and validates the file (the start refuses a bad one; a reload keeps the previous chain). */
export function readAuthorizationConfig(file: string): { config: AuthorizationConfig; data: string } {
  const data = readFileSync(file, 'utf8');
  return { config: parseAuthorizationConfig(data), data };
}
