/**
 * The flowcontrol.apiserver.k8s.io beta versions Kubernetes removed, served here only when
 * `--runtime-config` switches them on: v1beta1 (1.20 to 1.25), v1beta2 (1.23 to 1.28) and
 * v1beta3 (1.26 to 1.31), each with Kubernetes' API lifecycle (zz_generated.prerelease-lifecycle.go;
 * the replacement of v1beta1 is v1beta2, as the releases that served v1beta1 named it). Their
 * FlowSchemas and PriorityLevelConfigurations are v1's objects (stored at v1).
 */
import { ApiDeprecation, ResourceDef } from '../../scheme/types';

export type FlowcontrolBeta = 'v1beta1' | 'v1beta2' | 'v1beta3';
export const FLOWCONTROL_BETAS: readonly FlowcontrolBeta[] = ['v1beta1', 'v1beta2', 'v1beta3'];

const LIFECYCLE: Record<FlowcontrolBeta, { introducedIn?: [number, number]; deprecatedIn: [number, number]; removedIn: [number, number]; replacement: string }> = {
  v1beta1: { deprecatedIn: [1, 23], removedIn: [1, 26], replacement: 'v1beta2' },
  v1beta2: { introducedIn: [1, 23], deprecatedIn: [1, 26], removedIn: [1, 29], replacement: 'v1beta3' },
  v1beta3: { introducedIn: [1, 26], deprecatedIn: [1, 29], removedIn: [1, 32], replacement: 'v1' },
};

/** The version's serving and lifecycle fields of a def of `kind` in `group`. */
export function betaLifecycle(group: string, kind: string, version: FlowcontrolBeta): Pick<ResourceDef, 'version' | 'servedByDefault' | 'introducedIn' | 'deprecation'> {
  const l = LIFECYCLE[version];
  const deprecation: ApiDeprecation = { deprecatedIn: l.deprecatedIn, removedIn: l.removedIn, replacement: { group, version: l.replacement, kind } };
  return { version, servedByDefault: false, ...(l.introducedIn ? { introducedIn: l.introducedIn } : {}), deprecation };
}
