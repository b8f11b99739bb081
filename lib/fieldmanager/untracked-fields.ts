/**
 * Paths no manager ever owns (Kubernetes' strip-meta manager): the type fields, `metadata` itself
 * and the metadata the server sets or identifies the object by. Only these exact paths are
 * removed; what lies below `metadata` (labels, annotations, finalizers, ownerReferences,
 * generateName, ...) is tracked.
 */
import { FieldSet } from './field-set';

const UNTRACKED: string[][] = [
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((f) => ['f:metadata', `f:${f}`]),
];

/** The untracked paths as a set (a fresh copy each call; callers may not share it). */
export function untrackedFields(): FieldSet {
  return FieldSet.of(...UNTRACKED);
}

/** One copy for stripUntracked, which only reads it (difference never changes its argument). */
const UNTRACKED_SET = untrackedFields();

/** `set` without the untracked paths. */
export function stripUntracked(set: FieldSet): FieldSet {
  return set.difference(UNTRACKED_SET);
}
