/**
 * Keeps the compiled ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings current from
 * their watch caches (ResourceFeed, as the webhook configurations): a policy is compiled once per
 * stored version; bindings are kept sorted by name, the order Kubernetes evaluates them in.
 */
import { ResourceFeed } from '../../registry/resource-feed';
import { storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { ApiObject } from '../../scheme/types';
import { PluginDeps } from '../plugin-factory';
import { CompiledBinding, CompiledPolicy, compileBinding, compilePolicy } from './compiled-policy';

export class PolicySource {
  readonly policies = new Map<string, CompiledPolicy>();
  private readonly bindingsByName = new Map<string, CompiledBinding>();
  private sorted: CompiledBinding[] = [];
  private readonly feeds: ResourceFeed[] = [];

  constructor(private readonly deps: PluginDeps) {}

  /** Bindings in name order. */
  bindings(): readonly CompiledBinding[] {
    return this.sorted;
  }

  private resort(): void {
    this.sorted = [...this.bindingsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private upsertPolicy(o: ApiObject): void {
    const name = o.metadata?.name ?? '';
    const known = this.policies.get(name);
    if (known && known.resourceVersion === o.metadata?.resourceVersion) return;
    this.policies.set(name, compilePolicy(o));
  }

  private upsertBinding(o: ApiObject): void {
    this.bindingsByName.set(o.metadata?.name ?? '', compileBinding(o));
    this.resort();
  }

  /** Resolves once every stored policy and binding is known. */
  async start(): Promise<void> {
    const group = this.deps.naming.group('admissionregistration');
    const policies = this.deps.stores.get(storeKey(group, 'v1', 'validatingadmissionpolicies')) as GenericStore | undefined;
    const bindings = this.deps.stores.get(storeKey(group, 'v1', 'validatingadmissionpolicybindings')) as GenericStore | undefined;
    if (!policies || !bindings) {
      this.deps.log.warn(`ValidatingAdmissionPolicy: validatingadmissionpolicies.${group}/v1 is not served; no policy will be enforced`);
      return;
    }
    this.feeds.push(new ResourceFeed(policies, {
      upsert: (o) => this.upsertPolicy(o), remove: (o) => { this.policies.delete(o.metadata?.name ?? ''); },
    }, 'admission-validatingadmissionpolicies'));
    this.feeds.push(new ResourceFeed(bindings, {
      upsert: (o) => this.upsertBinding(o), remove: (o) => { this.bindingsByName.delete(o.metadata?.name ?? ''); this.resort(); },
    }, 'admission-validatingadmissionpolicybindings'));
    for (const f of this.feeds) await f.start();
  }

  async stop(): Promise<void> {
    for (const f of this.feeds) await f.stop();
  }
}
