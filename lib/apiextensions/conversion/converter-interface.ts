/**
 * The converter contract: what a converter of one CRD's objects promises, whichever strategy
 * it implements. Its own file so the converters (none-converter.ts, webhook-converter.ts) and
 * the code that picks one (converter.ts) all stand on it without importing each other.
 */
import { ApiObject } from '../../scheme/types';

export type ConversionStrategy = 'None' | 'Webhook';

/** How the objects of one convert() call belong together. */
export interface ConvertOptions {
  /**
   * The objects are the items of one list (a list page): a webhook gets them in one review, and
   * errors name the list (`<group>/<toVersion>, Kind=<ListKind>`) and the index, as Kubernetes'.
   * Otherwise each object is converted on its own (its own review), errors naming the object.
   */
  list?: boolean;
}

/**
 * Converts a batch of objects of one CRD to one of its versions (`toVersion` is the version
 * name, e.g. `v2`). The result has one object per input, in order; objects already at the
 * version come back unchanged (the same objects). The input is never mutated.
 */
interface ConverterBase<R> {
  readonly strategy: ConversionStrategy;
  convert(objects: readonly ApiObject[], toVersion: string, opts?: ConvertOptions): R;
}

/** `None`: answers synchronously; throws ConversionError. */
export interface SyncConverter extends ConverterBase<ApiObject[]> { readonly strategy: 'None' }

/** `Webhook`: answers asynchronously; rejects with ConversionError. */
export interface AsyncConverter extends ConverterBase<Promise<ApiObject[]>> { readonly strategy: 'Webhook' }

/** Narrow on `strategy` (or on the result being an array) to know whether to await. */
export type Converter = SyncConverter | AsyncConverter;
