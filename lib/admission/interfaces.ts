/**
 * The admission seam. The generic store calls the chain's mutating phase (admit) after
 * defaulting and before the kind's validation, and its validating phase (validate) after it,
 * all before the one etcd write: a rejection anywhere fails the request with nothing written.
 * Plugins throw ApiError to reject. A dry run runs them too (`dryRun` set): plugins with side
 * effects skip those. Reads never reach admission.
 *
 * A plugin is registered by name (registry.ts), made by its factory (plugin-factory.ts) from
 * the server's deps and its section of --admission-control-config-file, and started once the
 * watch caches are (start()).
 */
import type { ResourceDef } from '../scheme/types';
import type { AdmissionAttributes } from '../registry/admission-attributes';
import { performance } from 'node:perf_hooks';
import { AdmissionMetrics, StepType } from './metrics';

export interface AdmissionPlugin {
  /** The name --enable-admission-plugins uses (e.g. `NamespaceLifecycle`). */
  name: string;
  /** Mutating phase: may change attrs.object. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase: may only reject. */
  validate?(attrs: AdmissionAttributes): Promise<void>;
  /** Called once the stores and their watch caches run, before anything is served. */
  start?(): Promise<void>;
  stop?(): Promise<void> | void;
  /**
   * The resources this plugin can act on, as `group/resource` (core: `/pods`). Absent: any. On a
   * request for another resource the chain does not call it: its own check would return at once.
   * Its metrics are observed all the same (a call that took no time).
   */
  resources?: readonly string[];
}

/** The key of `resources` for a resource definition. */
const resourceKey = (r: ResourceDef) => `${r.group}/${r.resource}`;

/**
 * The ordered plugins of a server. admit() runs every mutating plugin in order; when one asks
 * for reinvocation (a webhook with reinvocationPolicy IfNeeded whose object a later plugin
 * changed), the mutating plugins run once more. validate() runs every validating plugin in order.
 * With `metrics`, each phase and each plugin call is timed, as Kubernetes' step and controller
 * admission histograms (a rejection is a thrown error).
 */
export class AdmissionChain {
  private readonly mutating: AdmissionPlugin[];
  private readonly validating: AdmissionPlugin[];
  /** Per resource definition and phase: whether each plugin acts on it (see AdmissionPlugin.resources). */
  private readonly acting = new WeakMap<ResourceDef, { admit: boolean[]; validate: boolean[] }>();

  constructor(readonly plugins: AdmissionPlugin[], private readonly metrics?: AdmissionMetrics) {
    this.mutating = plugins.filter((p) => p.admit);
    this.validating = plugins.filter((p) => p.validate);
  }

  private actingOn(def: ResourceDef): { admit: boolean[]; validate: boolean[] } {
    let a = this.acting.get(def);
    if (a === undefined) {
      const key = resourceKey(def);
      const acts = (p: AdmissionPlugin) => p.resources === undefined || p.resources.includes(key);
      a = { admit: this.mutating.map(acts), validate: this.validating.map(acts) };
      this.acting.set(def, a);
    }
    return a;
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!this.mutating.length) return;
    const started = this.metrics ? performance.now() : 0;
    try {
      const reinvocation = attrs.reinvocation ??= { reinvoke: false, isReinvoke: false, state: new Map() };
      await this.run('admit', this.mutating, attrs);
      if (reinvocation.reinvoke) {
        reinvocation.isReinvoke = true;
        reinvocation.reinvoke = false;
        await this.run('admit', this.mutating, attrs);
      }
    } catch (err) {
      this.metrics?.observeStep('admit', attrs.operation, true, (performance.now() - started) / 1000);
      throw err;
    }
    this.metrics?.observeStep('admit', attrs.operation, false, (performance.now() - started) / 1000);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!this.validating.length) return;
    const started = this.metrics ? performance.now() : 0;
    try {
      await this.run('validate', this.validating, attrs);
    } catch (err) {
      this.metrics?.observeStep('validate', attrs.operation, true, (performance.now() - started) / 1000);
      throw err;
    }
    this.metrics?.observeStep('validate', attrs.operation, false, (performance.now() - started) / 1000);
  }

  async start(): Promise<void> {
    for (const p of this.plugins) await p.start?.();
  }

  async stop(): Promise<void> {
    for (const p of this.plugins) await p.stop?.();
  }

  /**
   * The plugins of one phase in order, each call timed under the plugin's name. One loop, with no
   * promise of its own per plugin: a create passes a dozen plugins twice.
   */
  private async run(type: StepType, plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
    const m = this.metrics;
    const acts = this.actingOn(attrs.resource)[type];
    // One clock reading per plugin: each call ends where the next one starts.
    let started = m ? performance.now() : 0;
    for (let i = 0; i < plugins.length; i++) {
      const p = plugins[i];
      if (!acts[i]) {
        m?.observeController(p.name, type, attrs.operation, false, 0);
        continue;
      }
      try {
        await (type === 'admit' ? p.admit!(attrs) : p.validate!(attrs));
      } catch (err) {
        m?.observeController(p.name, type, attrs.operation, true, (performance.now() - started) / 1000);
        throw err;
      }
      if (m) {
        const ended = performance.now();
        m.observeController(p.name, type, attrs.operation, false, (ended - started) / 1000);
        started = ended;
      }
    }
  }
}
