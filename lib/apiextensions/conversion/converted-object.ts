/**
 * What Kubernetes accepts of an object a conversion webhook sent back: the same kind, name,
 * namespace and uid as the original (validateConvertedObject), and of its metadata only labels
 * and annotations, which must be valid; everything else of metadata is put back from the
 * original (restoreObjectMeta). Failures are ReviewErrors with Kubernetes' sentences.
 */
import { ApiObject } from '../../scheme/types';
import { validateAnnotations, validateLabels } from '../../meta/validation';
import { FieldError, formatFieldError } from '../../meta/field-errors';
import { goTypeOf } from './go-names';
import { ReviewError } from './conversion-review';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
/** Go's unstructured getters: a field that is not a string reads as "". */
const metaString = (o: ApiObject, field: string): string => {
  const m = o.metadata as Obj | undefined;
  return isObj(m) && typeof m[field] === 'string' ? m[field] as string : '';
};

/** Kubernetes' validateConvertedObject: identity fields may not change. */
export function checkConvertedIdentity(original: ApiObject, converted: ApiObject): void {
  const pairs: Array<[string, string, string]> = [
    ['kind', typeof original.kind === 'string' ? original.kind : '', typeof converted.kind === 'string' ? converted.kind : ''],
    ['name', metaString(original, 'name'), metaString(converted, 'name')],
    ['namespace', metaString(original, 'namespace'), metaString(converted, 'namespace')],
    ['UID', metaString(original, 'uid'), metaString(converted, 'uid')],
  ];
  for (const [what, a, b] of pairs) {
    if (a !== b) throw new ReviewError(`must have the same ${what}: ${a} != ${b}`);
  }
}

/** An aggregate of field errors as Go prints it: one alone, several in brackets. */
function aggregate(errs: FieldError[]): string {
  const list = errs.map(formatFieldError);
  return list.length === 1 ? list[0] : `[${list.join(', ')}]`;
}

/**
 * Kubernetes' restoreObjectMeta: the result is `converted` with the original's metadata (a deep
 * copy), except labels and annotations, taken from `converted` (absent there: removed) after
 * checking them when they differ from the original's.
 */
export function restoreMetadata(original: ApiObject, converted: ApiObject): ApiObject {
  if (!('metadata' in converted)) throw new ReviewError('missing metadata in converted object');
  const fromHook = converted.metadata as unknown;
  if (!isObj(fromHook)) throw new ReviewError(`invalid metadata of type ${goTypeOf(fromHook)} in converted object`);
  const restored: Obj = original.metadata === undefined ? {} : structuredClone(original.metadata) as Obj;
  if (!isObj(restored)) throw new ReviewError(`invalid metadata of type ${goTypeOf(restored)} in input object`);
  for (const field of ['labels', 'annotations'] as const) {
    const given = fromHook[field];
    if (given === undefined || given === null) {
      delete restored[field];
      continue;
    }
    if (!isObj(given)) throw new ReviewError(`invalid metadata.${field} of type ${goTypeOf(given)} in converted object`);
    const had = restored[field];
    if (!isObj(had) && had !== undefined && had !== null) {
      throw new ReviewError(`invalid metadata.${field} of type ${goTypeOf(had)} in original object`);
    }
    const before = isObj(had) ? had : {};
    let changed = Object.keys(before).length !== Object.keys(given).length;
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') throw new ReviewError(`metadata.${field}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      // Kubernetes names the annotations path `metadata.annotation`.
      const errs = field === 'labels' ? validateLabels(given, 'metadata.labels') : validateAnnotations(given, 'metadata.annotation');
      if (errs.length) throw new ReviewError(aggregate(errs));
    }
    restored[field] = given;
  }
  return { ...converted, metadata: restored as ApiObject['metadata'] };
}
