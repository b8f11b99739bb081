/**
 * ValidateLimitRange of Kubernetes 1.32 (pkg/apis/core/validation), for create and update alike
 * (the strategy validates an update as a new object): each item's type and resource names, one
 * item per type, no default or defaultRequest on a Pod item, min or max storage on a
 * PersistentVolumeClaim item, and per resource min <= defaultRequest <= default <= max, a
 * maxLimitRequestRatio of at least 1 and at most max/min, default equal to defaultRequest for
 * resources that cannot be overcommitted. Messages and field paths are Kubernetes'; a bad value
 * that is a quantity prints as Go's %#v of the resource.Quantity, as field.Invalid prints it.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { goQuantity } from '../../../meta/go-quantity';
import { Quantity, compareQuantities, formatQuantity, quantityValue, tryParseQuantity } from '../../../meta/quantity';
import { Json, record, records, text } from '../json-fields';
import { overcommitAllowed, validateLimitRangeResourceName, validateLimitRangeTypeName } from './resource-names';

/** resource.MaxMilliValue: the largest value whose milli value fits an int64. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

/** Quantity.MilliValue(): the amount in thousandths, rounded up. */
export const milliValue = (q: Quantity): bigint => quantityValue({ ...q, scale: q.scale + 3 });

/** Go's %f: six decimals (+Inf when divided by zero). */
export const goFloat = (v: number): string => (Number.isFinite(v) ? v.toFixed(6) : (v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN'));

type Quantities = Map<string, { raw: unknown; q: Quantity }>;

/** The parsed quantities of one ResourceList field (unparsable values were refused at decode). */
function quantities(item: Json, field: string): Quantities {
  const out: Quantities = new Map();
  for (const [k, raw] of Object.entries(record(item, field) ?? {})) {
    const q = tryParseQuantity(raw);
    if (q) out.set(k, { raw, q });
  }
  return out;
}

/** An Invalid error whose bad value is the quantity `raw`. */
function invalidQuantity(path: string, raw: unknown, detail: string): FieldError {
  const go = goQuantity(raw);
  return go === undefined ? fieldErrors.invalid(path, raw, detail) : { type: 'FieldValueInvalid', field: path, message: `Invalid value: ${go}: ${detail}` };
}

/** The checks between one resource's bounds of one item. */
function validateBounds(k: string, path: string, b: Record<'min' | 'max' | 'def' | 'defReq' | 'ratio', { raw: unknown; q: Quantity } | undefined>): FieldError[] {
  const errs: FieldError[] = [];
  const s = (x: { q: Quantity }) => formatQuantity(x.q);
  const gt = (a: { q: Quantity }, c: { q: Quantity }) => compareQuantities(a.q, c.q) > 0;
  const at = (field: string) => index(child(path, field), k);
  const { min, max, def, defReq, ratio } = b;
  if (min && max && gt(min, max)) errs.push(invalidQuantity(at('min'), min.raw, `min value ${s(min)} is greater than max value ${s(max)}`));
  if (defReq && min && gt(min, defReq)) errs.push(invalidQuantity(at('defaultRequest'), defReq.raw, `min value ${s(min)} is greater than default request value ${s(defReq)}`));
  if (defReq && max && gt(defReq, max)) errs.push(invalidQuantity(at('defaultRequest'), defReq.raw, `default request value ${s(defReq)} is greater than max value ${s(max)}`));
  if (defReq && def && gt(defReq, def)) errs.push(invalidQuantity(at('defaultRequest'), defReq.raw, `default request value ${s(defReq)} is greater than default limit value ${s(def)}`));
  if (def && min && gt(min, def)) errs.push(invalidQuantity(at('default'), min.raw, `min value ${s(min)} is greater than default value ${s(def)}`));
  if (def && max && gt(def, max)) errs.push(invalidQuantity(at('default'), max.raw, `default value ${s(def)} is greater than max value ${s(max)}`));
  if (ratio && compareQuantities(ratio.q, { value: 1n, scale: 0, format: 'DecimalSI' }) < 0) {
    errs.push(invalidQuantity(at('maxLimitRequestRatio'), ratio.raw, `ratio ${s(ratio)} is less than 1`));
  }
  if (ratio && min && max) {
    let ratioValue = Number(quantityValue(ratio.q));
    let minValue = quantityValue(min.q);
    let maxValue = quantityValue(max.q);
    if (quantityValue(ratio.q) < MAX_MILLI_VALUE && minValue < MAX_MILLI_VALUE && maxValue < MAX_MILLI_VALUE) {
      ratioValue = Number(milliValue(ratio.q)) / 1000;
      minValue = milliValue(min.q);
      maxValue = milliValue(max.q);
    }
    const limit = Number(maxValue) / Number(minValue);
    if (ratioValue > limit) errs.push(invalidQuantity(at('maxLimitRequestRatio'), ratio.raw, `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
  }
  if (!overcommitAllowed(k) && def && defReq && compareQuantities(def.q, defReq.q) !== 0) {
    errs.push(invalidQuantity(at('defaultRequest'), defReq.raw, `default value ${s(def)} must equal to defaultRequest value ${s(defReq)} in ${k}`));
  }
  return errs;
}

/** ValidateLimitRange's checks of spec.limits (metadata is the store's). */
export function validateLimitRangeSpec(spec: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seenTypes = new Set<string>();
  records(spec ?? {}, 'limits').forEach((item, i) => {
    const path = index('spec.limits', i);
    const type = text(item, 'type');
    errs.push(...validateLimitRangeTypeName(type, child(path, 'type')));
    if (seenTypes.has(type)) errs.push(fieldErrors.duplicate(child(path, 'type'), type));
    seenTypes.add(type);

    const keys = new Set<string>();
    const lists: Record<string, Quantities> = {};
    const take = (field: string) => {
      for (const k of Object.keys(record(item, field) ?? {})) {
        errs.push(...validateLimitRangeResourceName(type, k, index(child(path, field), k)));
        keys.add(k);
      }
      lists[field] = quantities(item, field);
    };
    take('max');
    take('min');
    if (type === 'Pod') {
      if (Object.keys(record(item, 'default') ?? {}).length) errs.push(fieldErrors.forbidden(child(path, 'default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(record(item, 'defaultRequest') ?? {}).length) errs.push(fieldErrors.forbidden(child(path, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
    } else {
      take('default');
      take('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !lists.min.has('storage') && !lists.max.has('storage')) {
      errs.push(fieldErrors.required(child(path, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    take('maxLimitRequestRatio');
    for (const k of keys) {
      errs.push(...validateBounds(k, path, {
        min: lists.min.get(k), max: lists.max.get(k), def: lists.default?.get(k), defReq: lists.defaultRequest?.get(k),
        ratio: lists.maxLimitRequestRatio.get(k),
      }));
    }
  });
  return errs;
}
