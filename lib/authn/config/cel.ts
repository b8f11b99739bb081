/**
 * The two CEL environments of structured authentication, as Kubernetes declares them
 * (k8s.io/apiserver/pkg/authentication/cel): `claims`, a map(string, dyn) of the token's verified
 * claims, for claim validation rules and claim mappings; `user`, a kubernetes.UserInfo (username,
 * uid, groups, extra), for user validation rules. Built once, through lib/cel only. Evaluation is
 * bounded by the per-call cost limit and never throws: a failed evaluation is an error string.
 */
import {
  CelCompileResult, CelCostBudget, CelEnvironment, CelProgram, PER_CALL_LIMIT, celEnvironment, compile, fromCel,
} from '../../cel';

export const USER_TYPE = 'kubernetes.UserInfo';

let claimsEnv: CelEnvironment | undefined;
let userEnv: CelEnvironment | undefined;

function claimsEnvironment(): CelEnvironment {
  claimsEnv ??= celEnvironment({ purpose: 'authentication', variables: [{ name: 'claims', type: 'map<string, dyn>' }] });
  return claimsEnv;
}

function userEnvironment(): CelEnvironment {
  userEnv ??= celEnvironment({
    purpose: 'authentication',
    variables: [{ name: 'user', type: USER_TYPE }],
    types: [{ name: USER_TYPE, fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } }],
  });
  return userEnv;
}

/** Compiles an expression over `claims`; `bool` for validation rules, any type for mappings. */
export function compileClaimsExpression(expression: string, resultTypes?: string[]): CelCompileResult {
  return compile(claimsEnvironment(), expression, resultTypes ? { resultTypes } : {});
}

/** Compiles a user validation rule (over `user`; must be bool). */
export function compileUserExpression(expression: string): CelCompileResult {
  return compile(userEnvironment(), expression, { resultTypes: ['bool'] });
}

/**
 * Whether an expression reads `claims.email` (or `claims.?email`): Kubernetes then requires
 * `claims.email_verified` to be read somewhere too. Kubernetes looks at the parsed expression;
 * this looks at its text, outside string literals.
 */
export function readsClaim(expression: string, claim: string): boolean {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return new RegExp(`\\bclaims\\s*\\.\\s*\\??\\s*${claim}\\b`).test(code);
}

export type Evaluated = { ok: true; value: unknown } | { ok: false; error: string };

/** One evaluation with its own per-call budget; the value as JSON (ints as numbers). */
export function evaluate(program: CelProgram, activation: Record<string, unknown>): Evaluated {
  let r;
  try {
    r = program.evaluate(activation, new CelCostBudget(PER_CALL_LIMIT));
  } catch (err) {
    // The seam promises not to throw; a throw is still only this token's failure.
    return { ok: false, error: (err as Error).message };
  }
  if (!r.ok) return { ok: false, error: r.reason === 'cost' ? 'operation cancelled: actual cost limit exceeded' : firstLine(r.error) };
  return { ok: true, value: fromCel(r.value) };
}

const firstLine = (s: string) => s.split('\n')[0];

/**
 * Kubernetes' convertCELValueToStringList: a string is one value, a list of strings its values,
 * null none; "" and "" items are dropped; anything else is an error.
 */
export function stringList(value: unknown): string[] | string {
  const bad = 'expression must return a string or a list of strings';
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) return bad;
    return (value as string[]).filter((v) => v !== '');
  }
  return bad;
}
