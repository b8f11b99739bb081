/**
 * The workload kinds' versions Kubernetes removed in 1.16 (apps/v1beta2, apps/v1beta1 and the
 * workloads of extensions/v1beta1), each over the apps/v1 objects and off unless
 * `--runtime-config` switches its group version on; in the order Kubernetes 1.15's discovery
 * lists them (each kind's folder has its `removed-versions.ts`).
 */
import { ResourceDef } from '../../scheme/types';
import { FeatureGates } from '../../scheme/feature-gates';
import { Naming } from '../../naming';
import { controllerRevisionAppsV1beta1Resource, controllerRevisionAppsV1beta2Resource } from './controller-revisions/removed-versions';
import { controllerRevisionResource } from './controller-revisions/definition';
import { daemonSetAppsV1beta2Resource, daemonSetExtensionsV1beta1Resource } from './daemon-sets/removed-versions';
import { daemonSetResource } from './daemon-sets/definition';
import { deploymentAppsV1beta1Resource, deploymentAppsV1beta2Resource, deploymentExtensionsV1beta1Resource } from './deployments/removed-versions';
import { deploymentResource } from './deployments/definition';
import { replicaSetAppsV1beta2Resource, replicaSetExtensionsV1beta1Resource } from './replica-sets/removed-versions';
import { replicaSetResource } from './replica-sets/definition';
import { statefulSetAppsV1beta1Resource, statefulSetAppsV1beta2Resource } from './stateful-sets/removed-versions';
import { statefulSetResource } from './stateful-sets/definition';

/** apps/v1beta2, apps/v1beta1 and extensions/v1beta1's DaemonSet, Deployment and ReplicaSet. */
export function removedWorkloadResources(naming: Naming, gates: FeatureGates): ResourceDef[] {
  const revisions = controllerRevisionResource();
  const daemonSets = daemonSetResource(naming, gates);
  const deployments = deploymentResource(naming, gates);
  const replicaSets = replicaSetResource(naming, gates);
  const statefulSets = statefulSetResource(naming, gates);
  return [
    controllerRevisionAppsV1beta2Resource(revisions), daemonSetAppsV1beta2Resource(daemonSets), deploymentAppsV1beta2Resource(deployments),
    replicaSetAppsV1beta2Resource(replicaSets), statefulSetAppsV1beta2Resource(statefulSets),
    controllerRevisionAppsV1beta1Resource(revisions), deploymentAppsV1beta1Resource(deployments), statefulSetAppsV1beta1Resource(statefulSets),
    daemonSetExtensionsV1beta1Resource(daemonSets), deploymentExtensionsV1beta1Resource(deployments), replicaSetExtensionsV1beta1Resource(replicaSets),
  ];
}
