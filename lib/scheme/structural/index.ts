/**
 * The schema engine of custom resources (pure functions, no server dependency): CRD-time checks,
 * the structural model, pruning, defaulting, validation with ajv and the bridges to the server.
 */
export { Structural, toStructural } from './structural';
export { validateCrdSchema, CrdSchemaOptions } from './validate-crd-schema';
export { prune, PruneOptions } from './prune';
export { applyDefaults, pruneNonNullableNulls, hasDefaults } from './default';
export { coerceEmbedded, validateEmbedded } from './embedded-meta';
export { compileValidator, compileCount, CompiledValidator } from './compile';
export { validateListSetsAndMaps } from './list-set-map-validation';
export { toServerSchema, ServerSchemaOptions } from './to-server-schema';
export { fieldPathInSchema, FieldPathResult } from './field-path';
export { CrSchemaRuntime, DecodeOptions, DecodeResult } from './runtime';
