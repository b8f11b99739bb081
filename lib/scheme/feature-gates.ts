/**
 * Feature gates (`--feature-gates=Name=true,...`): the named switches that turn alpha and beta
 * behaviour of the served kinds on or off. Each known gate has Kubernetes' default for the
 * release the spec describes; kinds read them through `enabled` when they are built.
 */

/** Known gates and their defaults (alpha off, beta on). */
export const FEATURE_GATE_DEFAULTS: Readonly<Record<string, boolean>> = {
  /** Beta: claims' spec.dataSourceRef, kept equal to spec.dataSource. */
  AnyVolumeDataSource: true,
  /** Alpha: claims' status.allocatedResources and status.resizeStatus; shrinking a failed expansion. */
  RecoverVolumeExpansionFailure: false,
  /** Volumes' spec.csi.controllerExpandSecretRef. */
  ExpandCSIVolumes: true,
  /** The ReadWriteOncePod access mode of volumes and claims. */
  ReadWriteOncePod: true,
};

export class FeatureGates {
  private readonly values: Record<string, boolean>;
  /** Names given that no kind knows (they have no effect). */
  readonly unknown: string[];

  /** `overrides`: the `--feature-gates` map; names not in FEATURE_GATE_DEFAULTS are kept in `unknown`. */
  constructor(overrides: Record<string, boolean> = {}) {
    this.values = { ...FEATURE_GATE_DEFAULTS };
    this.unknown = [];
    for (const [name, on] of Object.entries(overrides)) {
      if (Object.hasOwn(FEATURE_GATE_DEFAULTS, name)) this.values[name] = on;
      else this.unknown.push(name);
    }
  }

  /** Whether the gate is on; an unknown name is off. */
  enabled(name: string): boolean {
    return this.values[name] ?? false;
  }
}
