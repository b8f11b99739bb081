/**
 * autoscaling/v2 metric specs and statuses to and from the autoscaling/v1 MetricSpec and
 * MetricStatus types (k8s.io/api/autoscaling/v1: metricName, targetAverageValue,
 * currentAverageUtilization...), the shape Kubernetes writes into the v1 annotations
 * `autoscaling.alpha.kubernetes.io/metrics` and `.../current-metrics` (pkg/apis/autoscaling/v1/
 * conversion.go). Fields are written in Go's declaration order and Go's value quantities that
 * are unset are written as "0", as json.Marshal of the Go types writes them.
 */
import { Json, isObject, objectOr, present } from './types';

const copy = (out: Json, to: string, from: Json, key: string) => { if (present(from[key])) out[to] = from[key]; };
const orZero = (from: Json, key: string): unknown => (present(from[key]) ? from[key] : '0');
const orEmpty = (from: Json, key: string): unknown => (present(from[key]) ? from[key] : '');

/** CrossVersionObjectReference (the same fields at v1 and v2). */
export function crossVersionRef(r: unknown): Json {
  const ref = objectOr(r);
  const out: Json = { kind: orEmpty(ref, 'kind'), name: orEmpty(ref, 'name') };
  copy(out, 'apiVersion', ref, 'apiVersion');
  return out;
}

const identifierOf = (src: Json): { name: unknown; selector: unknown } => {
  const metric = objectOr(src.metric);
  return { name: orEmpty(metric, 'name'), selector: metric.selector };
};

const identifier = (name: unknown, selector: unknown): Json => {
  const out: Json = { name: name ?? '' };
  if (present(selector)) out.selector = selector;
  return out;
};

/** Convert_autoscaling_MetricSpec_To_v1_MetricSpec (one v2 metric spec). */
export function metricSpecToV1(m: Json): Json {
  const out: Json = { type: orEmpty(m, 'type') };
  if (isObject(m.object)) {
    const { name, selector } = identifierOf(m.object);
    const target = objectOr(m.object.target);
    const v: Json = { target: crossVersionRef(m.object.describedObject), metricName: name, targetValue: orZero(target, 'value') };
    if (present(selector)) v.selector = selector;
    copy(v, 'averageValue', target, 'averageValue');
    out.object = v;
  }
  if (isObject(m.pods)) {
    const { name, selector } = identifierOf(m.pods);
    const v: Json = { metricName: name, targetAverageValue: orZero(objectOr(m.pods.target), 'averageValue') };
    if (present(selector)) v.selector = selector;
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    const src = m[key];
    if (!isObject(src)) continue;
    const target = objectOr(src.target);
    const v: Json = { name: orEmpty(src, 'name') };
    copy(v, 'targetAverageUtilization', target, 'averageUtilization');
    copy(v, 'targetAverageValue', target, 'averageValue');
    if (key === 'containerResource') v.container = orEmpty(src, 'container');
    out[key] = v;
  }
  if (isObject(m.external)) {
    const { name, selector } = identifierOf(m.external);
    const target = objectOr(m.external.target);
    const v: Json = { metricName: name };
    if (present(selector)) v.metricSelector = selector;
    copy(v, 'targetValue', target, 'value');
    copy(v, 'targetAverageValue', target, 'averageValue');
    out.external = v;
  }
  return out;
}

/** Convert_v1_MetricSpec_To_autoscaling_MetricSpec (one metric of the v1 annotation). */
export function metricSpecFromV1(m: Json): Json {
  const out: Json = { type: orEmpty(m, 'type') };
  if (isObject(m.object)) {
    const o = m.object;
    const target: Json = { type: present(o.averageValue) ? 'AverageValue' : 'Value', value: orZero(o, 'targetValue') };
    copy(target, 'averageValue', o, 'averageValue');
    out.object = { describedObject: crossVersionRef(o.target), target, metric: identifier(o.metricName, o.selector) };
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    out.pods = { metric: identifier(p.metricName, p.selector), target: { type: 'AverageValue', averageValue: orZero(p, 'targetAverageValue') } };
  }
  for (const key of ['resource', 'containerResource']) {
    const src = m[key];
    if (!isObject(src)) continue;
    const target: Json = { type: present(src.targetAverageUtilization) ? 'Utilization' : 'AverageValue' };
    copy(target, 'averageValue', src, 'targetAverageValue');
    copy(target, 'averageUtilization', src, 'targetAverageUtilization');
    out[key] = key === 'containerResource'
      ? { name: orEmpty(src, 'name'), target, container: orEmpty(src, 'container') }
      : { name: orEmpty(src, 'name'), target };
  }
  if (isObject(m.external)) {
    const e = m.external;
    const target: Json = { type: present(e.targetValue) ? 'Value' : 'AverageValue' };
    copy(target, 'value', e, 'targetValue');
    copy(target, 'averageValue', e, 'targetAverageValue');
    out.external = { metric: identifier(e.metricName, e.metricSelector), target };
  }
  return out;
}

/** Convert_autoscaling_MetricStatus_To_v1_MetricStatus (one v2 current metric). */
export function metricStatusToV1(m: Json): Json {
  const out: Json = { type: orEmpty(m, 'type') };
  if (isObject(m.object)) {
    const { name, selector } = identifierOf(m.object);
    const current = objectOr(m.object.current);
    const v: Json = { target: crossVersionRef(m.object.describedObject), metricName: name, currentValue: orZero(current, 'value') };
    if (present(selector)) v.selector = selector;
    copy(v, 'averageValue', current, 'averageValue');
    out.object = v;
  }
  if (isObject(m.pods)) {
    const { name, selector } = identifierOf(m.pods);
    const v: Json = { metricName: name, currentAverageValue: orZero(objectOr(m.pods.current), 'averageValue') };
    if (present(selector)) v.selector = selector;
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    const src = m[key];
    if (!isObject(src)) continue;
    const current = objectOr(src.current);
    const v: Json = { name: orEmpty(src, 'name') };
    copy(v, 'currentAverageUtilization', current, 'averageUtilization');
    v.currentAverageValue = orZero(current, 'averageValue');
    if (key === 'containerResource') v.container = orEmpty(src, 'container');
    out[key] = v;
  }
  if (isObject(m.external)) {
    const { name, selector } = identifierOf(m.external);
    const current = objectOr(m.external.current);
    const v: Json = { metricName: name };
    if (present(selector)) v.metricSelector = selector;
    v.currentValue = orZero(current, 'value');
    copy(v, 'currentAverageValue', current, 'averageValue');
    out.external = v;
  }
  return out;
}

/** Convert_v1_MetricStatus_To_autoscaling_MetricStatus (one metric of the v1 annotation). */
export function metricStatusFromV1(m: Json): Json {
  const out: Json = { type: orEmpty(m, 'type') };
  if (isObject(m.object)) {
    const o = m.object;
    const current: Json = { value: orZero(o, 'currentValue') };
    copy(current, 'averageValue', o, 'averageValue');
    out.object = { metric: identifier(o.metricName, o.selector), current, describedObject: crossVersionRef(o.target) };
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    out.pods = { metric: identifier(p.metricName, p.selector), current: { averageValue: orZero(p, 'currentAverageValue') } };
  }
  for (const key of ['resource', 'containerResource']) {
    const src = m[key];
    if (!isObject(src)) continue;
    const current: Json = { averageValue: orZero(src, 'currentAverageValue') };
    copy(current, 'averageUtilization', src, 'currentAverageUtilization');
    out[key] = key === 'containerResource'
      ? { name: orEmpty(src, 'name'), current, container: orEmpty(src, 'container') }
      : { name: orEmpty(src, 'name'), current };
  }
  if (isObject(m.external)) {
    const e = m.external;
    const current: Json = { value: orZero(e, 'currentValue') };
    copy(current, 'averageValue', e, 'currentAverageValue');
    out.external = { metric: identifier(e.metricName, e.metricSelector), current };
  }
  return out;
}
