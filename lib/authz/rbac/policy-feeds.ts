/**
 * Keeps a PolicyIndex current: one ResourceFeed per RBAC kind (from its watch cache when there
 * is one), each handing every role and binding to the index as it changes.
 */
import { ResourceFeed } from '../../controllers/resource-feed';
import { StoreIndex, storeKey } from '../../api/resource-handler';
import { GenericStore } from '../../registry/store';
import { PolicyIndex } from './policy-index';
import { BindingObject, RoleObject } from './types';

export class PolicyFeeds {
  private readonly feeds: ResourceFeed[] = [];

  constructor(stores: StoreIndex, rbacGroup: string, index: PolicyIndex) {
    const store = (resource: string) => {
      const s = stores.get(storeKey(rbacGroup, 'v1', resource));
      if (!s) throw new Error(`RBAC authorization needs the ${resource}.${rbacGroup} resource`);
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
  }

  /** Resolves once every kind's current state is in the index. */
  async start(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.stop()));
  }
}
