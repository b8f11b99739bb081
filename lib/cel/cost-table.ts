/**
 * Static cost of functions, keyed by function name as Kubernetes and cel-go name them (cel-go
 * checker/cost.go, k8s.io/apiserver/pkg/cel/library/cost.go). Each entry says how a call's cost grows
 * with the size of its receiver and arguments; lib/cel/cost-estimate applies it. Functions not listed
 * cost 1. The numbers are checked against Kubernetes' own cost tests in
 * test/unit/cel/cost-estimate.test.ts.
 */

/** How a function's cost follows sizes: r = receiver (or first argument) size, a = first other argument size. */
export type CostRule =
  | { kind: 'const'; cost: number }
  | { kind: 'traverse'; factor: number } // ceil(r * factor)
  | { kind: 'traverse-arg'; factor: number } // ceil(a * factor)
  /** ceil(r*rf) * ceil(a*af); addOne: r+1 (so an empty input still pays for an expensive regex). */
  | { kind: 'product'; rFactor: number; aFactor: number; addOne?: boolean };

const STRING_TRAVERSAL = 0.1;
const REGEX_STRING_LENGTH = 0.25;

export const FUNCTION_COSTS: Readonly<Record<string, CostRule>> = {
  size: { kind: 'const', cost: 1 },
  contains: { kind: 'product', rFactor: STRING_TRAVERSAL, aFactor: STRING_TRAVERSAL },
  startsWith: { kind: 'traverse-arg', factor: STRING_TRAVERSAL },
  endsWith: { kind: 'traverse-arg', factor: STRING_TRAVERSAL },
  matches: { kind: 'product', rFactor: STRING_TRAVERSAL, aFactor: REGEX_STRING_LENGTH, addOne: true },
  find: { kind: 'product', rFactor: STRING_TRAVERSAL, aFactor: REGEX_STRING_LENGTH, addOne: true },
  findAll: { kind: 'product', rFactor: STRING_TRAVERSAL, aFactor: REGEX_STRING_LENGTH, addOne: true },
  string: { kind: 'traverse', factor: STRING_TRAVERSAL },
  bytes: { kind: 'traverse', factor: STRING_TRAVERSAL },
  // Kubernetes' lists library: O(n) in the list size.
  isSorted: { kind: 'traverse', factor: 1 },
  sum: { kind: 'traverse', factor: 1 },
  max: { kind: 'traverse', factor: 1 },
  min: { kind: 'traverse', factor: 1 },
  indexOf: { kind: 'traverse', factor: 1 },
  lastIndexOf: { kind: 'traverse', factor: 1 },
  // strings extension and Kubernetes' string-taking functions: O(n) in the string size.
  charAt: { kind: 'traverse', factor: STRING_TRAVERSAL },
  lowerAscii: { kind: 'traverse', factor: STRING_TRAVERSAL },
  upperAscii: { kind: 'traverse', factor: STRING_TRAVERSAL },
  trim: { kind: 'traverse', factor: STRING_TRAVERSAL },
  substring: { kind: 'traverse', factor: STRING_TRAVERSAL },
  replace: { kind: 'traverse', factor: STRING_TRAVERSAL },
  split: { kind: 'traverse', factor: STRING_TRAVERSAL },
  join: { kind: 'traverse', factor: STRING_TRAVERSAL },
  reverse: { kind: 'traverse', factor: STRING_TRAVERSAL },
  url: { kind: 'traverse', factor: STRING_TRAVERSAL },
  isURL: { kind: 'traverse', factor: STRING_TRAVERSAL },
  quantity: { kind: 'traverse', factor: STRING_TRAVERSAL },
  isQuantity: { kind: 'traverse', factor: STRING_TRAVERSAL },
  ip: { kind: 'traverse', factor: STRING_TRAVERSAL },
  isIP: { kind: 'traverse', factor: STRING_TRAVERSAL },
  cidr: { kind: 'traverse', factor: STRING_TRAVERSAL },
  isCIDR: { kind: 'traverse', factor: STRING_TRAVERSAL },
  semver: { kind: 'traverse', factor: STRING_TRAVERSAL },
  isSemver: { kind: 'traverse', factor: STRING_TRAVERSAL },
  validate: { kind: 'traverse', factor: STRING_TRAVERSAL },
  // Kubernetes' authz library: a check calls the authorizer.
  check: { kind: 'const', cost: 350_000 },
};
