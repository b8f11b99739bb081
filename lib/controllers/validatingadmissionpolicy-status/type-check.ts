/**
 * The type checking of kube-controller-manager's validatingadmissionpolicy-status controller: each
 * validation's expression and messageExpression compiled against every resource the policy's
 * resourceRules name exactly (group, version, resource without wildcards, as Kubernetes resolves
 * them), with `object` / `oldObject` typed from that resource's schema and `params` from the
 * paramKind's; a compile error is a warning "<group/version, Kind=kind>: <error>", the lines of one
 * expression joined by newlines. Where no schema types a variable it is dyn (nothing to warn).
 */
import { CelObjectType, CelSchema, CelVariable, celEnvironment, compile, declarationForSchema } from '../../cel';
import { GenericStore } from '../../registry/store';
import { ApiObject, ResourceDef } from '../../scheme/types';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export interface ExpressionWarning { fieldRef: string; warning: string }

const gvkString = (d: ResourceDef) => `${d.group ? `${d.group}/` : ''}${d.version}, Kind=${d.kind}`;

/** The defs the policy's resourceRules name without wildcards. */
function matchedDefs(policy: ApiObject, stores: Iterable<GenericStore>): ResourceDef[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const mc = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const defs: ResourceDef[] = [];
  const all = [...stores].map((s) => s.def);
  for (const rule of Array.isArray(mc.resourceRules) ? mc.resourceRules.filter(isObject) : []) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    const resources = strings(rule.resources);
    if ([...groups, ...versions, ...resources].some((x) => x.includes('*'))) continue;
    for (const d of all) {
      if (groups.includes(d.group) && versions.includes(d.version) && resources.includes(d.resource) && !defs.includes(d)) defs.push(d);
    }
  }
  return defs;
}

function paramDef(policy: ApiObject, stores: Iterable<GenericStore>): ResourceDef | undefined {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
  if (!pk) return undefined;
  const av = String(pk.apiVersion ?? '');
  const slash = av.indexOf('/');
  const [group, version] = slash < 0 ? ['', av] : [av.slice(0, slash), av.slice(slash + 1)];
  for (const s of stores) if (s.def.group === group && s.def.version === version && s.def.kind === pk.kind) return s.def;
  return undefined;
}

/** The warnings of one policy (an empty list when everything checks). */
export function typeCheckPolicy(policy: ApiObject, stores: Iterable<GenericStore>): ExpressionWarning[] {
  const storeList = [...stores];
  const spec = isObject(policy.spec) ? policy.spec : {};
  const defs = matchedDefs(policy, storeList);
  if (!defs.length) return [];
  const params = paramDef(policy, storeList);
  const hasParams = isObject(spec.paramKind);
  const hasVariables = Array.isArray(spec.variables) && spec.variables.length > 0;
  const expressions: Array<[string, string]> = [];
  (Array.isArray(spec.validations) ? spec.validations.filter(isObject) : []).forEach((v, i) => {
    if (typeof v.expression === 'string' && v.expression) expressions.push([`spec.validations[${i}].expression`, v.expression]);
    if (typeof v.messageExpression === 'string' && v.messageExpression) expressions.push([`spec.validations[${i}].messageExpression`, v.messageExpression]);
  });
  const environments = defs.map((d) => {
    const types: CelObjectType[] = [];
    // A schema the typing cannot read types its variable as dyn.
    const typed = (schema: unknown, prefix: string): string => {
      try {
        const decl = declarationForSchema(schema as CelSchema, prefix);
        types.push(...decl.types);
        return decl.type;
      } catch {
        return 'dyn';
      }
    };
    const objectType = typed(d.schema, `${d.kind}.`);
    const variables: CelVariable[] = [
      { name: 'object', type: objectType }, { name: 'oldObject', type: objectType }, { name: 'request', type: 'dyn' },
      { name: 'namespaceObject', type: 'dyn' }, { name: 'authorizer', type: 'dyn' },
    ];
    if (hasParams) variables.push({ name: 'params', type: params ? typed(params.schema, `params.${params.kind}.`) : 'dyn' });
    if (hasVariables) variables.push({ name: 'variables', type: 'map<string, dyn>' });
    let env;
    try {
      env = celEnvironment({ purpose: 'admission-policy', variables, types });
    } catch {
      env = undefined; // A type the engine cannot declare: nothing is checked against it.
    }
    return { gvk: gvkString(d), env };
  });
  const warnings: ExpressionWarning[] = [];
  for (const [fieldRef, expression] of expressions) {
    const lines: string[] = [];
    for (const { gvk, env } of environments) {
      if (!env) continue;
      let error: string | undefined;
      try {
        const r = compile(env, expression);
        if (!r.ok) error = r.error;
      } catch (e) {
        error = (e as Error).message;
      }
      if (error !== undefined) lines.push(`${gvk}: ${error}`);
    }
    if (lines.length) warnings.push({ fieldRef, warning: lines.join('\n') });
  }
  return warnings;
}
