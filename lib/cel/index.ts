/**
 * Kubernetes' Common Expression Language: environments (lib/cel/environment), compiling and evaluating
 * (lib/cel/compile), JSON values in and out (lib/cel/values). Callers (CRD validation rules,
 * ValidatingAdmissionPolicy, webhook match conditions, structured authentication and authorization)
 * import from here only.
 */

export { celEnvironment, registerLibrary } from './environment';
export type { CelEnvironment, CelEnvironmentOptions, CelVariable, CelObjectType, CelPurpose, CelLibraryInstaller } from './environment';
export { compile, CelCostBudget } from './compile';
export type { CelProgram, CelEvalResult, CelCompileResult, CompileOptions } from './compile';
export { toCel, fromCel } from './values';
