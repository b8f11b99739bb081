/**
 * Feature gates (`--feature-gates=Name=true,...`) with component-base's lifecycle: alpha gates
 * are off unless enabled, beta gates on unless disabled, GA and deprecated gates may be set (with
 * a warning that they will be removed) but a locked one only to its locked value; unknown and
 * removed names stop the start. AllAlpha / AllBeta switch every alpha / beta gate not set by name.
 */
import { FEATURE_GATE_LIST, GateSpec, REMOVED_GA_GATES } from './feature-gate-list';

/** The two switches of every alpha / beta gate; shown in help as Kubernetes shows them. */
const ALL_SWITCHES: Readonly<Record<string, GateSpec>> = {
  AllAlpha: { stage: 'ALPHA', default: false },
  AllBeta: { stage: 'BETA', default: false },
};

/** Known gates and their 1.32 defaults (kept for callers reading defaults by name). */
export const FEATURE_GATE_DEFAULTS: Readonly<Record<string, boolean>> = Object.fromEntries(
  Object.entries(FEATURE_GATE_LIST).map(([name, spec]) => [name, spec.default]),
);

export class FeatureGates {
  private readonly values: Record<string, boolean>;
  /** The warnings setting these gates deserves (GA or deprecated gates set), in Kubernetes' words. */
  readonly warnings: string[] = [];

  /**
   * `overrides`: the `--feature-gates` map. Throws an Error with one line, in component-base's
   * words, on the first unknown or removed name or a locked gate set to the other value.
   */
  constructor(overrides: Record<string, boolean> = {}) {
    this.values = { ...FEATURE_GATE_DEFAULTS };
    for (const name of REMOVED_GA_GATES) this.values[name] = true;
    const explicit = new Set<string>();
    for (const [name, on] of Object.entries(overrides)) {
      if (Object.hasOwn(ALL_SWITCHES, name)) continue;
      const spec = FEATURE_GATE_LIST[name];
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      if (spec.locked && spec.default !== on) throw new Error(`cannot set feature gate ${name} to ${on}, feature is locked to ${spec.default}`);
      if (spec.stage === 'DEPRECATED') this.warnings.push(`Setting deprecated feature gate ${name}=${on}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') this.warnings.push(`Setting GA feature gate ${name}=${on}. It will be removed in a future release.`);
      this.values[name] = on;
      explicit.add(name);
    }
    // A gate set by name wins over AllAlpha / AllBeta, whatever the order given.
    for (const [all, stage] of [['AllAlpha', 'ALPHA'], ['AllBeta', 'BETA']] as const) {
      const on = overrides[all];
      if (on === undefined) continue;
      for (const [name, spec] of Object.entries(FEATURE_GATE_LIST)) {
        if (spec.stage === stage && !explicit.has(name)) this.values[name] = on;
      }
    }
  }

  /** Whether the gate is on; a name no release knows is off. */
  enabled(name: string): boolean {
    return this.values[name] ?? false;
  }
}

/**
 * The `--feature-gates` help as kube-apiserver prints it: every gate but GA and deprecated ones,
 * sorted, as `Name=true|false (STAGE - default=x)`.
 */
export function featureGatesHelp(): string {
  const known = Object.entries({ ...FEATURE_GATE_LIST, ...ALL_SWITCHES })
    .filter(([, s]) => s.stage === 'ALPHA' || s.stage === 'BETA')
    .map(([name, s]) => `${name}=true|false (${s.stage} - default=${s.default})`)
    .sort();
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${known.join('\n')}`;
}
