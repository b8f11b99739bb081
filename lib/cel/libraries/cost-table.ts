/**
 * The shape in which each library file states its functions' runtime cost for the estimator and the
 * runtime tracker (lib/cel/cost, owned by the typing-and-cost part), as Kubernetes' library/cost.go
 * computes it. Key: `receiverType.name` or `name` (an overload after a slash when overloads differ).
 * Sizes: string and bytes length, list length, map entry count. Functions absent from every table
 * cost 1 per call (cel-go's default for a function call).
 */

/** An operand of the call: the receiver, or the n-th argument. */
export type CostOperand = 'receiver' | 'arg0' | 'arg1';

export type CostFormula =
  /** `cost` per call. */
  | { kind: 'constant'; cost: number; note?: string }
  /** ceil(factor * size(of)), plus `base`. */
  | { kind: 'linear'; of: CostOperand; factor: number; base?: number; note?: string }
  /** ceil(factor * size(of[0])) * ceil(factor2 * size(of[1])), each size at least 1 (regexes, sets). */
  | { kind: 'product'; of: [CostOperand, CostOperand]; factor: number; factor2: number; note?: string };

export type CostTable = Readonly<Record<string, CostFormula>>;

/** Kubernetes' common.StringTraversalCostFactor: 0.1 per character. */
export const STRING_TRAVERSAL = 0.1;
/** Kubernetes' common.RegexStringLengthCostFactor: 0.25 per pattern character. */
export const REGEX_LENGTH = 0.25;
