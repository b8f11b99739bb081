/** The contract every volume source family implements (see volume-list.ts for the dispatch). */
import { FieldError } from '../../../meta/field-errors';
import { Json } from '../json-fields';

/** What a source check may need beyond the source itself. */
export interface VolumeContext {
  /** The volume's name (`spec.volumes[i].name`). */
  volumeName: string;
  /** The workload's name; '' when not known yet. */
  workloadName: string;
  /** Path of the volume itself, e.g. `spec.volumes[0]` (some errors are reported there). */
  volumePath: string;
}

/**
 * One volume source: `validate` returns the errors of the source object found at `path`
 * (e.g. `spec.volumes[0].configMap`) and must not mutate it; `defaults` fills the fields
 * Kubernetes defaults, in place.
 */
export interface SourceRule {
  validate(source: Json, path: string, ctx: VolumeContext): FieldError[];
  defaults?(source: Json): void;
}
