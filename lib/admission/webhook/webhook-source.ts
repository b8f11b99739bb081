/**
 * Keeps a WebhookIndex current from the stored configurations (v1 form) through a ResourceFeed
 * on the kind's watch cache: every replica sees a change as soon as its cache does. Without the
 * kind (a server built without it) there are no webhooks, and the start says so once.
 */
import { ResourceFeed } from '../../registry/resource-feed';
import { storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { PluginDeps } from '../plugin-factory';
import { WebhookIndex } from './webhook-index';

export class WebhookSource {
  readonly index: WebhookIndex;
  private feed?: ResourceFeed;

  constructor(private readonly deps: PluginDeps, private readonly resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations') {
    this.index = new WebhookIndex(resource === 'mutatingwebhookconfigurations');
  }

  /** Resolves once every stored configuration is in the index. */
  async start(): Promise<void> {
    const group = this.deps.naming.group('admissionregistration');
    const store = this.deps.stores.get(storeKey(group, 'v1', this.resource)) as GenericStore | undefined;
    if (!store) {
      this.deps.log.warn(`admission webhooks: ${this.resource}.${group}/v1 is not served; no webhook will be called`);
      return;
    }
    const index = this.index;
    this.feed = new ResourceFeed(store, { upsert: (o) => index.upsert(o), remove: (o) => index.remove(o) }, `admission-${this.resource}`);
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
  }
}
