/**
 * Compiling a schema node's `x-kubernetes-validations` (Kubernetes' apiextensions
 * schema/cel/compilation.go): each rule with `self` typed from the node's schema (and `oldSelf`,
 * an optional when `optionalOldSelf` is set), its `messageExpression`, the normalized `fieldPath`,
 * whether it is a transition rule, and the static cost inputs (the estimate and the node's
 * unbounded cardinality). Results are cached per schema node, so a CRD version's rules compile
 * once and again only when the CRD (hence its structural schema) changes.
 */
import { CelProgram, CelSchema, celEnvironment, compile, declarationForSchema } from '../../../cel';
import type { CelEnvironment, CelObjectType, CelVariable } from '../../../cel';
import { Structural } from '../../../scheme/structural/structural';
import { fieldPathInSchema } from '../../../scheme/structural/field-path';

/** One rule as written in the schema (any JSON: checked at CRD write time). */
export interface XValidation {
  rule?: unknown;
  message?: unknown;
  messageExpression?: unknown;
  reason?: unknown;
  fieldPath?: unknown;
  optionalOldSelf?: unknown;
}

/** One compiled rule; `error` when the rule does not compile (`required` for an empty rule). */
export interface CompiledRule {
  raw: XValidation;
  rule: string;
  program?: CelProgram;
  /** The environment the rule compiled in (evaluating an optional oldSelf uses its engine). */
  env?: CelEnvironment;
  messageProgram?: CelProgram;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
  /** The rule's fieldPath as Kubernetes' field path (`spec.x`, map keys `[k]`), '' when unset. */
  normalizedFieldPath: string;
  error?: { type: 'required' | 'invalid'; detail: string };
  messageError?: string;
  /** The static cost estimate of the rule and of its messageExpression. */
  maxCost: number;
  messageMaxCost: number;
  /** How many times the rule could run when nothing bounds its node (3 MiB / smallest value). */
  unboundedCardinality: number;
}

const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The smallest JSON serialization of a value of `s` (Kubernetes' DeclType.MinSerializedSize). */
function minSerializedSize(s: Structural): number {
  if (s.xIntOrString) return 1;
  switch (s.type) {
    case 'boolean': return 4;
    case 'integer': case 'number': return 1;
    case 'string': return s.format === 'date-time' ? 22 : s.format === 'date' ? 12 : 2;
    default: return 2;
  }
}

// `oldSelf` as an identifier outside string literals (Kubernetes asks the checked AST).
function referencesOldSelf(expr: string): boolean {
  const code = expr.replace(/"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
  return /(^|[^A-Za-z0-9_.])oldSelf(?![A-Za-z0-9_])/.test(code);
}

/**
 * The schema `self` has at a node: at the resource root and at embedded resources, with
 * apiVersion, kind and metadata name/generateName (Kubernetes' WithTypeAndObjectMeta).
 */
export function selfSchema(s: Structural, isResourceRoot: boolean): CelSchema {
  const raw = s.raw as CelSchema;
  if (!isResourceRoot && !s.xEmbeddedResource) return raw;
  // One object per node: lib/cel's typing knows a schema (and the object types it declared) by identity.
  let out = selfSchemas.get(s);
  if (!out) {
    const meta = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
    out = { ...raw, type: 'object', properties: { ...(raw.properties ?? {}), apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: meta } };
    selfSchemas.set(s, out);
  }
  return out;
}
const selfSchemas = new WeakMap<Structural, CelSchema>();

const cache = new WeakMap<Structural, CompiledRule[]>();
let typeCounter = 0;

/** The compiled rules of node `s` (cached); [] when it has none. */
export function compileNodeRules(s: Structural, isResourceRoot = false): CompiledRule[] {
  const hit = cache.get(s);
  if (hit) return hit;
  const rules = (s.xValidations ?? []).map((r) => (isObject(r) ? r : {}) as XValidation);
  let compiled: CompiledRule[] = [];
  if (rules.length) {
    const schema = selfSchema(s, isResourceRoot);
    const decl = declarationForSchema(schema, `__crd${++typeCounter}`);
    const types: CelObjectType[] = decl.types;
    // The schema rides along for lib/cel's cost estimate (size bounds of self and oldSelf), where
    // CelVariable takes one; built apart from the call so an older CelVariable type accepts it too.
    const variable = (name: string, type: string): CelVariable => {
      const v = { name, type, schema };
      return v;
    };
    const envFor = (optionalOld: boolean) => celEnvironment({
      purpose: 'crd', types,
      variables: [variable('self', decl.type), variable('oldSelf', optionalOld ? `optional<${decl.type}>` : decl.type)],
    });
    const envs = new Map<boolean, CelEnvironment>();
    const env = (optionalOld: boolean) => {
      if (!envs.has(optionalOld)) envs.set(optionalOld, envFor(optionalOld));
      return envs.get(optionalOld)!;
    };
    const cardinality = Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize(s) + 1));
    compiled = rules.map((raw) => compileRule(raw, s, env, cardinality));
  }
  cache.set(s, compiled);
  return compiled;
}

// lib/cel's refusal of a result type (its words vary; Kubernetes' are set here), not a compile error.
const wrongType = (error: string) => !error.startsWith('compilation failed') && /must evaluate to/.test(error);

function compileRule(raw: XValidation, s: Structural, env: (optionalOld: boolean) => CelEnvironment, cardinality: number): CompiledRule {
  const rule = str(raw.rule);
  const out: CompiledRule = {
    raw, rule, usesOldSelf: false, optionalOldSelf: raw.optionalOldSelf === true, normalizedFieldPath: '',
    maxCost: 0, messageMaxCost: 0, unboundedCardinality: cardinality,
  };
  const fp = str(raw.fieldPath).trim();
  if (fp) {
    const found = fieldPathInSchema(fp, s);
    if (!found.error) out.normalizedFieldPath = found.path;
  }
  if (!rule.trim()) {
    out.error = { type: 'required', detail: 'rule is not specified' };
    return out;
  }
  out.usesOldSelf = referencesOldSelf(rule);
  const e = env(out.usesOldSelf && out.optionalOldSelf);
  out.env = e;
  const res = compile(e, rule, { resultTypes: ['bool'] });
  if (!res.ok) {
    out.error = { type: 'invalid', detail: wrongType(res.error) ? 'cel expression must evaluate to a bool' : res.error };
  } else {
    out.program = res.program;
    out.maxCost = res.program.estimatedCost.max;
  }
  const msgExpr = str(raw.messageExpression);
  if (msgExpr.trim()) {
    const m = compile(e, msgExpr, { resultTypes: ['string'] });
    if (!m.ok) {
      out.messageError = wrongType(m.error) ? 'messageExpression must evaluate to a string' : `messageExpression ${m.error}`;
    } else {
      out.messageProgram = m.program;
      out.messageMaxCost = m.program.estimatedCost.max;
    }
  }
  return out;
}
