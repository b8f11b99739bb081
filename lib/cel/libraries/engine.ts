/**
 * What Kubernetes' libraries need from the engine beyond its public registration API: the runtime
 * classes it does not export (uint, duration, timestamp are told apart by constructor), namespaces
 * such as `strings.` / `sets.` / `format.` (a constant of a namespace type, the way the engine does
 * `optional.`), errors raised from a function, and replacing a built-in overload whose semantics
 * differ from cel-go (the engine refuses to register an overlapping signature; its overload sets are
 * reached through a checked probe expression and the declaration is swapped there).
 */

import { Environment, EvaluationError, Optional } from '@marcbachmann/cel-js';

const probe = new Environment();
/** The engine's uint class (1u). */
export const UintClass = (probe.evaluate('1u') as object).constructor as new (v: bigint) => { valueOf(): bigint };
/** The engine's duration class (duration('1s')). */
export const DurationClass = (probe.evaluate('duration("1s")') as object).constructor as new (seconds: bigint, nanos?: number) => DurationValue;
export { Optional };

export interface DurationValue {
  readonly seconds: bigint;
  readonly nanos: number;
  addDuration(other: DurationValue): DurationValue;
}

/** A CEL runtime error with exactly Kubernetes' text. */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}

/** A CEL int (bigint) checked to fit int64. */
export const INT64_MAX = (1n << 63n) - 1n;
export const INT64_MIN = -(1n << 63n);
export function checkedInt(v: bigint): bigint {
  if (v > INT64_MAX || v < INT64_MIN) throw celError('integer overflow');
  return v;
}

/** Declares a namespace (`strings`, `sets`, `format`): a constant whose type carries the namespace's functions. */
export function declareNamespace(env: Environment, constant: string, typeName: string): void {
  const Ns = { [typeName]: class {} }[typeName] as new () => object;
  env.registerType(typeName, Ns);
  env.registerConstant(constant, typeName, new Ns());
}

/** The first decimal index of a rune-indexed string: strings are indexed by code points in CEL. */
export function runes(s: string): string[] {
  return Array.from(s);
}

interface CandidateSet {
  declarations: Array<{ signature: string; handler: (...a: unknown[]) => unknown }>;
  add(decl: unknown): void;
}

/**
 * Replaces the handler of a built-in overload in this environment only. `probeExpression` must call
 * the function so that type checking resolves its overload set; `signature` names the overload as
 * the engine prints it (e.g. 'string.indexOf(string): int').
 */
export function replaceOverload(env: Environment, probeExpression: string, signature: string, handler: (...a: never[]) => unknown): void {
  const parsed = env.parse(probeExpression);
  const checked = parsed.check();
  if (!checked.valid) throw new Error(`cel library: probe ${probeExpression} does not check: ${checked.error?.message}`);
  const set = findCandidates(parsed.ast as unknown as Record<string, unknown>);
  if (!set) throw new Error(`cel library: probe ${probeExpression} has no call`);
  const i = set.declarations.findIndex((d) => d.signature === signature);
  if (i < 0) throw new Error(`cel library: no overload ${signature} (have ${set.declarations.map((d) => d.signature).join('; ')})`);
  const old = set.declarations[i];
  const copy = Object.freeze(Object.assign(Object.create(Object.getPrototypeOf(old) as object) as object, old, { handler }));
  set.declarations.splice(i, 1);
  set.add(copy);
}

function findCandidates(node: Record<string, unknown>): CandidateSet | undefined {
  return node.candidates as CandidateSet | undefined;
}
