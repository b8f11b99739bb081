/**
 * Keeps a PolicyIndex current: one ResourceFeed per RBAC kind (from its watch cache when there
 * is one), each handing every role and binding to the index as it changes. The feeds are made
 * at start, so that a chain can be built (and asked) before the stores are served.
 */
import { ResourceFeed } from '../../registry/resource-feed';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { PolicyIndex } from './policy-index';
import { BindingObject, RoleObject } from '../../registry/rbac/types';

export class PolicyFeeds {
  private feeds: ResourceFeed[] = [];

  constructor(private readonly stores: StoreIndex, private readonly rbacGroup: string, private readonly index: PolicyIndex) {}

  /** Resolves once every kind's current state is in the index. */
  async start(): Promise<void> {
    const { index } = this;
    const store = (resource: string) => {
      const s = this.stores.get(storeKey(this.rbacGroup, 'v1', resource));
      if (!s) throw new Error(`RBAC authorization needs the ${resource}.${this.rbacGroup} resource`);
      return s as GenericStore;
    };
    this.feeds = [
      new ResourceFeed(store('clusterroles'), {
        upsert: (o) => index.upsertClusterRole(o as RoleObject), remove: (o) => index.removeClusterRole(o as RoleObject),
      }, 'rbac-clusterroles'),
      new ResourceFeed(store('roles'), {
        upsert: (o) => index.upsertRole(o as RoleObject), remove: (o) => index.removeRole(o as RoleObject),
      }, 'rbac-roles'),
      new ResourceFeed(store('clusterrolebindings'), {
        upsert: (o) => index.upsertBinding(o as BindingObject), remove: (o) => index.removeBinding(o as BindingObject),
      }, 'rbac-clusterrolebindings'),
      new ResourceFeed(store('rolebindings'), {
        upsert: (o) => index.upsertBinding(o as BindingObject), remove: (o) => index.removeBinding(o as BindingObject),
      }, 'rbac-rolebindings'),
    ];
    await Promise.all(this.feeds.map((f) => f.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.stop()));
  }
}
