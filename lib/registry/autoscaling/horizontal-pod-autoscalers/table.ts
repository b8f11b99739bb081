/**
 * kubectl's HorizontalPodAutoscaler columns (printHorizontalPodAutoscaler, pkg/printers/
 * internalversion/printers.go): NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE. TARGETS is
 * formatHPAMetrics: `current/target` per metric (resource metrics prefixed with the resource
 * name, `cpu: <unknown>/80%`), the first two, then `+ N more...`.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { formatQuantity, tryParseQuantity } from '../../../meta/quantity';
import { ApiObject } from '../../../scheme/types';
import { Json, arrayOr, isObject, objectOr, present } from './types';

/** Quantity.String(), or `<nil>` for an unset pointer as Go prints it. */
function q(v: unknown): string {
  if (!present(v)) return '<nil>';
  const parsed = tryParseQuantity(v);
  return parsed ? formatQuantity(parsed) : String(v);
}

/** The same for a Go value quantity (unset is zero). */
const qv = (v: unknown): string => (present(v) ? q(v) : '0');

const UNKNOWN = '<unknown>';

/** One metric's `current/target` text. */
function formatMetric(spec: Json, status: Json | undefined): string {
  const src = (field: string): Json => objectOr(spec[field]);
  const cur = (field: string): Json | undefined => (status && isObject(status[field]) ? status[field] as Json : undefined);
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const field = spec.type === 'External' ? 'external' : 'object';
      const target = objectOr(src(field).target);
      const current = cur(field);
      if (present(target.averageValue)) {
        const c = current && present(objectOr(current.current).averageValue) ? q(objectOr(current.current).averageValue) : UNKNOWN;
        return `${c}/${q(target.averageValue)} (avg)`;
      }
      return `${current ? qv(objectOr(current.current).value) : UNKNOWN}/${q(target.value)}`;
    }
    case 'Pods': {
      const current = cur('pods');
      return `${current ? qv(objectOr(current.current).averageValue) : UNKNOWN}/${q(objectOr(src('pods').target).averageValue)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const field = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const target = objectOr(src(field).target);
      const current = cur(field);
      const name = String(src(field).name ?? '');
      if (present(target.averageValue)) return `${name}: ${current ? qv(objectOr(current.current).averageValue) : UNKNOWN}/${q(target.averageValue)}`;
      const utilization = current ? objectOr(current.current).averageUtilization : undefined;
      const c = present(utilization) ? `${utilization}%` : UNKNOWN;
      const t = present(target.averageUtilization) ? `${target.averageUtilization}%` : '<auto>';
      return `${name}: ${c}/${t}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics. */
export function formatHpaMetrics(specs: unknown, statuses: unknown): string {
  const list = arrayOr(specs);
  if (list.length === 0) return '<none>';
  const current = arrayOr(statuses);
  const texts = list.map((s, i) => formatMetric(objectOr(s), isObject(current[i]) ? current[i] as Json : undefined));
  const shown = texts.slice(0, 2).join(', ');
  return texts.length > 2 ? `${shown} + ${texts.length - 2} more...` : shown;
}

/** The columns over a v2 object; `toV2` turns a served object into one (v1 converts). */
export function hpaTable(toV2: (obj: ApiObject) => ApiObject): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
      column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.'),
      column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
      column('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
      column('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
      ageColumn,
    ],
    cells: (served, now) => {
      const obj = toV2(served as ApiObject);
      const spec = objectOr(obj.spec);
      const status = objectOr(obj.status);
      const ref = objectOr(spec.scaleTargetRef);
      return [
        served.metadata?.name ?? '',
        `${ref.kind ?? ''}/${ref.name ?? ''}`,
        formatHpaMetrics(spec.metrics, status.currentMetrics),
        present(spec.minReplicas) ? String(spec.minReplicas) : '<unset>',
        spec.maxReplicas ?? 0,
        status.currentReplicas ?? 0,
        translateTimestampSince(served.metadata?.creationTimestamp, now),
      ];
    },
  };
}
