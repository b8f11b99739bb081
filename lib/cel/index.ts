/**
 * Kubernetes' Common Expression Language: environments (lib/cel/environment), compiling and evaluating
 * (lib/cel/compile), JSON values in and out (lib/cel/values). Callers (CRD validation rules,
 * ValidatingAdmissionPolicy, webhook match conditions, structured authentication and authorization)
 * import from here only.
 */

import './libraries';

export { celEnvironment, registerLibrary } from './environment';
export type { CelEnvironment, CelEnvironmentOptions, CelVariable, CelObjectType, CelPurpose, CelLibraryInstaller } from './environment';
export { compile, CelCostBudget } from './compile';
export type { CelProgram, CelEvalResult, CelCompileResult, CompileOptions } from './compile';
export { toCel, fromCel } from './values';
/** The engine's optional values (an optional oldSelf is bound as one). */
export { Optional as CelOptional } from '@marcbachmann/cel-js';
export { declarationForSchema, celValueForSchema } from './schema-types';
export type { CelSchema, SchemaDeclaration, SchemaTypingOptions } from './schema-types';
export { escapeCelName, unescapeCelName } from './escaping';
export { maxCardinality, cardinalityOrRequestBound, estimateMaxArrayItemsFromMinSize, MAX_REQUEST_SIZE_BYTES } from './schema-model';
export { COST_LIMIT_EXCEEDED } from './runtime-cost';
export { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cost';
export { celAuthorizer, AUTHORIZER_VARIABLE } from './authz';
export type { CelAuthorizeFn, CelAuthzAttributes, CelAuthzResult, CelRequestResource } from './authz';
