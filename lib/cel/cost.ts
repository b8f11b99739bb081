/**
 * Cost limits as Kubernetes 1.32 has them (k8s.io/apiserver/pkg/apis/cel/config.go): the per-call
 * runtime limit, the static estimate limits checked when a CRD or policy is written, and the runtime
 * budget per validation call. The estimator itself (static cost of a compiled expression from the
 * size bounds of its inputs) and runtime cost tracking live beside this file.
 */

/** Runtime cost limit of one expression's evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** Runtime budget of all the rules of one custom-resource validation call. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Static estimate limit of one rule (a rule above it is refused where it is written). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Static estimate limit of all the rules of one CRD schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
