/**
 * The CEL environments of ValidatingAdmissionPolicy (Kubernetes' plugin/cel compiler): which
 * variables each kind of expression sees (object, oldObject, request, namespaceObject, params when
 * the policy has a paramKind, authorizer, variables) and which result types it must have, with
 * Kubernetes' messages. Used where a policy is written (validation: compile errors are 422 causes)
 * and by the admission plugin (compiled once per policy generation).
 *
 * `authorizer` is the authorizer library's (lib/cel/authz.ts), bound at evaluation to the
 * requesting user's rights (lib/admission/cel-authorizer.ts, set in lib/admission/policy/index.ts).
 */
import { AUTHORIZER_VARIABLE, CelEnvironment, CelProgram, CelVariable, celEnvironment, compile } from '../../cel';

/** What an expression's environment declares beyond object, oldObject, request and namespaceObject. */
export interface PolicyEnvOptions {
  hasParams: boolean;
  hasAuthorizer: boolean;
  /** Names declared through spec.variables (as `variables.<name>`). */
  composition: boolean;
}

const envCache = new Map<string, CelEnvironment>();

/** The (cached) environment for one combination of declarations. */
export function policyEnvironment(opts: PolicyEnvOptions): CelEnvironment {
  const key = `${opts.hasParams}/${opts.hasAuthorizer}/${opts.composition}`;
  let env = envCache.get(key);
  if (!env) {
    const variables: CelVariable[] = [
      { name: 'object', type: 'dyn' }, { name: 'oldObject', type: 'dyn' }, { name: 'request', type: 'dyn' },
      { name: 'namespaceObject', type: 'dyn' },
    ];
    if (opts.hasParams) variables.push({ name: 'params', type: 'dyn' });
    if (opts.hasAuthorizer) variables.push(AUTHORIZER_VARIABLE);
    if (opts.composition) variables.push({ name: 'variables', type: 'map<string, dyn>' });
    env = celEnvironment({ purpose: 'admission-policy', variables });
    envCache.set(key, env);
  }
  return env;
}

/** The result types an expression may have ('dyn' is always accepted, as Kubernetes' AnyType checks). */
export type ResultKind = 'bool' | 'string' | 'string-or-null' | 'any';

function resultTypeError(kind: ResultKind, outputType: string): string | undefined {
  if (outputType === 'dyn' || kind === 'any') return undefined;
  if (kind === 'bool') return outputType === 'bool' ? undefined : 'must evaluate to bool';
  if (kind === 'string') return outputType === 'string' ? undefined : 'must evaluate to string';
  return outputType === 'string' || outputType === 'null' || outputType === 'null_type' ? undefined : 'must evaluate to one of [string null_type]';
}

export type PolicyCompileResult = { ok: true; program: CelProgram } | { ok: false; error: string };

/** Compiles one expression of a policy: Kubernetes' "compilation failed: ..." or result type message on error. */
export function compilePolicyExpression(expression: string, kind: ResultKind, opts: PolicyEnvOptions): PolicyCompileResult {
  let compiled: ReturnType<typeof compile>;
  try {
    compiled = compile(policyEnvironment(opts), expression);
  } catch (e) {
    // The engine must never turn an author's expression into a 500.
    return { ok: false, error: `compilation failed: ERROR: ${(e as Error).message}` };
  }
  if (!compiled.ok) return { ok: false, error: compiled.error };
  const bad = resultTypeError(kind, compiled.program.outputType);
  if (bad) return { ok: false, error: bad };
  return { ok: true, program: compiled.program };
}

const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** isCELIdentifier of Kubernetes' validation. */
export function isCelIdentifier(name: string): boolean {
  return CEL_IDENT.test(name) && !CEL_RESERVED.has(name);
}
