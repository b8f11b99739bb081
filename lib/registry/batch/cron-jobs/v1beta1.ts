/**
 * CronJob at batch/v1beta1: removed from Kubernetes in 1.25, served here only when
 * `--runtime-config=batch/v1beta1=true` switches it on (deprecated, with Kubernetes' warning).
 * Its objects are batch/v1's (stored at v1) and of the same shape: v1beta1's SetDefaults_CronJob
 * gives what v1's does (concurrencyPolicy Allow, suspend false, history limits 3 and 1) and its
 * validation is v1's, so this is v1's def relabelled. What differs is a DELETE without a
 * propagation policy: at v1beta1 it orphans the Jobs, as Kubernetes kept for compatibility
 * (cronJobStrategy.DefaultGarbageCollectionPolicy), where v1 deletes them in the background.
 */
import { ResourceDef } from '../../../scheme/types';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { BATCH_GROUP, BATCH_VERSION } from '../group';
import { cronJobResource } from './definition';

export function cronJobV1beta1Resource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const v1 = cronJobResource(naming, gates);
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 21], removedIn: [1, 25], replacement: { group: BATCH_GROUP, version: BATCH_VERSION, kind: v1.kind } },
    strategy: { ...v1.strategy, defaultGarbageCollectionPolicy: 'OrphanDependents' },
  }, BATCH_VERSION);
}
