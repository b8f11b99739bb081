/**
 * The Kubernetes release that first served each current group-version-resource that came after
 * 1.20 (the oldest release `--emulated-version` takes): under `--emulated-version=1.N` below it the
 * resource is off by default (lib/server/runtime-config.ts). The current versions' releases are
 * kept here rather than on their defs because an older version's def is often built by spreading
 * the current one's (`{ ...v1, version: 'v1beta1' }`), which would carry the field over; other
 * defs give theirs in `ResourceDef.introducedIn`. Source: the release notes of the release that
 * took each to GA (a GA version has no prerelease-lifecycle file to read it from).
 */
import type { Naming } from '../naming';
import type { ResourceDef } from '../scheme/types';

type Release = [major: number, minor: number];

/** `<group in kube's spelling>/<version>/<resource>` -> the release that first served it. */
const CURRENT_VERSIONS_INTRODUCED: ReadonlyMap<string, Release> = new Map<string, Release>([
  // GA in 1.21: CronJob, EndpointSlice and PodDisruptionBudget.
  ['batch/v1/cronjobs', [1, 21]],
  ['discovery.k8s.io/v1/endpointslices', [1, 21]],
  ['policy/v1/poddisruptionbudgets', [1, 21]],
  ['autoscaling/v2/horizontalpodautoscalers', [1, 23]],
  ['storage.k8s.io/v1/csistoragecapacities', [1, 24]],
  ['authentication.k8s.io/v1/selfsubjectreviews', [1, 28]],
  ['flowcontrol.apiserver.k8s.io/v1/flowschemas', [1, 29]],
  ['flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', [1, 29]],
  ['admissionregistration.k8s.io/v1/validatingadmissionpolicies', [1, 30]],
  ['admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', [1, 30]],
]);

/** A group in kube's spelling: the flavor's domain (`storage.orch.io`) read as `k8s.io`. */
function kubeGroup(group: string, naming: Naming): string {
  const suffix = `.${naming.domain}`;
  return group.endsWith(suffix) ? `${group.slice(0, -suffix.length)}.k8s.io` : group;
}

/** The release that first served `def`, when later than 1.20; undefined when 1.20 served it. */
export function releaseIntroduced(def: Pick<ResourceDef, 'group' | 'version' | 'resource' | 'introducedIn'>, naming: Naming): Release | undefined {
  return def.introducedIn ?? CURRENT_VERSIONS_INTRODUCED.get(`${kubeGroup(def.group, naming)}/${def.version}/${def.resource}`);
}
