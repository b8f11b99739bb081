/**
 * The evaluator of each resource (Kubernetes' quota registry): pods, services and claims have
 * their own, every other resource the generic object count, made on first use (the served set
 * changes at runtime with custom resources).
 */
import { Naming } from '../../../naming';
import { storageNames } from '../../../registry/core/storage-annotations';
import { podEvaluator } from './pods';
import { serviceEvaluator } from './services';
import { persistentVolumeClaimEvaluator } from './persistent-volume-claims';
import { objectCountEvaluator } from './object-count';
import { Evaluator } from './types';

export class EvaluatorRegistry {
  private readonly byResource = new Map<string, Evaluator>();

  constructor(naming: Naming) {
    for (const e of [podEvaluator, serviceEvaluator, persistentVolumeClaimEvaluator(storageNames(naming), naming.group('storage'))]) {
      this.byResource.set(e.groupResource, e);
    }
  }

  /** The evaluator of `resource` in `group` (core: ''). */
  get(group: string, resource: string): Evaluator {
    const key = `${group}/${resource}`;
    let e = this.byResource.get(key);
    if (!e) {
      e = objectCountEvaluator(group, resource);
      this.byResource.set(key, e);
    }
    return e;
  }
}
