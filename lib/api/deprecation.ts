/**
 * Requests to deprecated API versions, as kube-apiserver's installer and request metrics treat
 * them: every request routed to such a version (any verb, subresources too, errors included)
 * answers a `Warning` with Kubernetes' text, records the audit annotations `<domain>/deprecated`
 * and `<domain>/removed-release`, and sets the STABLE gauge `apiserver_requested_deprecated_apis`.
 * "Deprecated" is as of the release served: that of `--emulated-version`, else 1.32.
 */
import type { Context } from 'koa';
import type { Gauge } from 'prom-client';
import { ApiDeprecation, ResourceDef, apiVersionOf } from '../scheme/types';
import { CURRENT_RELEASE, MetricsRegistry } from '../metrics/registry';
import { addAuditAnnotation } from '../meta/audit-annotations';
import { Naming } from '../naming';
import { warningRecorder } from './warnings';

export type Release = readonly [major: number, minor: number];

/** Whether `dep` applies at `current`: from its `deprecatedIn` release on (always, without one). */
export function isDeprecatedAt(dep: ApiDeprecation | undefined, current: Release = [CURRENT_RELEASE.major, CURRENT_RELEASE.minor]): boolean {
  if (!dep) return false;
  if (!dep.deprecatedIn) return true;
  const [major, minor] = dep.deprecatedIn;
  return major < current[0] || (major === current[0] && minor <= current[1]);
}

/** `<major>.<minor>` of the removal release, '' when none is known (the metric's `removed_release`). */
export function removedRelease(dep: ApiDeprecation): string {
  return dep.removedIn ? `${dep.removedIn[0]}.${dep.removedIn[1]}` : '';
}

/**
 * The warning text: the custom one, or Kubernetes' `<group>/<version> <Kind> is deprecated in
 * v1.16+, unavailable in v1.22+; use <group>/<version> <Kind>` (parts without data left out).
 */
export function deprecationWarning(def: Pick<ResourceDef, 'group' | 'version' | 'kind'>, dep: ApiDeprecation): string {
  if (dep.warning) return dep.warning;
  let text = `${apiVersionOf(def)} ${def.kind} is deprecated`;
  if (dep.deprecatedIn) text += ` in v${dep.deprecatedIn[0]}.${dep.deprecatedIn[1]}+`;
  if (dep.removedIn) text += `, unavailable in v${dep.removedIn[0]}.${dep.removedIn[1]}+`;
  if (dep.replacement) text += `; use ${apiVersionOf(dep.replacement)} ${dep.replacement.kind}`;
  return text;
}

type GaugeLabel = 'group' | 'version' | 'resource' | 'subresource' | 'removed_release';

interface Resolved { warning: string; removed: string }

/** Warns, annotates and counts requests to deprecated versions; one per server. */
export class DeprecatedApiRequests {
  private readonly gauge: Gauge<GaugeLabel>;
  private readonly deprecatedKey: string;
  private readonly removedKey: string;
  // Per def, what its requests need (undefined: not deprecated); computed once.
  private readonly resolved = new WeakMap<ResourceDef, Resolved | null>();
  // Label sets already set to 1: a repeat request touches nothing.
  private readonly seen = new Set<string>();

  constructor(metrics: MetricsRegistry, naming: Naming, private readonly release: Release = [CURRENT_RELEASE.major, CURRENT_RELEASE.minor]) {
    this.gauge = metrics.gauge({
      name: 'apiserver_requested_deprecated_apis', aggregator: 'max', stability: 'STABLE',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    });
    this.deprecatedKey = `${naming.domain}/deprecated`;
    this.removedKey = `${naming.domain}/removed-release`;
  }

  /** Records a request routed to `def` (a subresource of it when `subresource` is set). */
  record(ctx: Context, def: ResourceDef, subresource: string | undefined): void {
    if (!def.deprecation) return;
    let r = this.resolved.get(def);
    if (r === undefined) {
      r = isDeprecatedAt(def.deprecation, this.release) ? { warning: deprecationWarning(def, def.deprecation), removed: removedRelease(def.deprecation) } : null;
      this.resolved.set(def, r);
    }
    if (!r) return;
    warningRecorder(ctx).add(r.warning);
    addAuditAnnotation(ctx.state, this.deprecatedKey, 'true');
    if (r.removed) addAuditAnnotation(ctx.state, this.removedKey, r.removed);
    const sub = subresource ?? '';
    const key = `${def.group}/${def.version}/${def.resource}/${sub}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.gauge.set({ group: def.group, version: def.version, resource: def.resource, subresource: sub, removed_release: r.removed }, 1);
  }
}
