/**
 * Keeps a NodeGraph current (Kubernetes' graph populator): one ResourceFeed each over pods,
 * persistent volumes and volume attachments (their watch caches when they run), each change
 * handed to the graph as it happens. A kind the server does not serve is simply not followed.
 */
import { ResourceFeed } from '../../registry/resource-feed';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { Naming } from '../../naming';
import { NodeGraph } from './graph';

export class NodeGraphFeeds {
  private readonly feeds: ResourceFeed[] = [];

  constructor(stores: StoreIndex, naming: Naming, graph: NodeGraph) {
    const follow = (k: string, label: string, handlers: ConstructorParameters<typeof ResourceFeed>[1]) => {
      const store = stores.get(k) as GenericStore | undefined;
      if (store) this.feeds.push(new ResourceFeed(store, handlers, label));
    };
    follow(storeKey('', 'v1', 'pods'), 'node-graph-pods', {
      upsert: (o) => graph.setPod(o),
      remove: (o) => graph.removePod(o.metadata?.namespace ?? '', o.metadata?.name ?? ''),
    });
    follow(storeKey('', 'v1', 'persistentvolumes'), 'node-graph-pvs', {
      upsert: (o) => graph.setPersistentVolume(o),
      remove: (o) => graph.removePersistentVolume(o.metadata?.name ?? ''),
    });
    follow(storeKey(naming.group('storage'), 'v1', 'volumeattachments'), 'node-graph-volumeattachments', {
      upsert: (o) => {
        const node = (o.spec as { nodeName?: unknown } | undefined)?.nodeName;
        graph.setVolumeAttachment(o.metadata?.name ?? '', typeof node === 'string' ? node : '');
      },
      remove: (o) => graph.removeVolumeAttachment(o.metadata?.name ?? ''),
    });
  }

  /** Resolves once the current state of every kind followed is in the graph. */
  async start(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.stop()));
  }
}
