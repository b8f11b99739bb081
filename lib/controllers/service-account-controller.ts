/**
 * The service-account controller (Kubernetes' serviceaccounts controller): every active namespace
 * has a ServiceAccount named `default`. It is created when a namespace appears (and for every
 * namespace at start) and again when it is deleted; a Terminating namespace gets none. Driven by
 * feeds of namespaces and service accounts (the watch caches when they run).
 *
 * Safe to run in every replica at once: it only ever creates, and a create is an etcd
 * transaction on the key being absent, so of two servers racing one makes `default` and the
 * other gets AlreadyExists, which counts as done. It never updates or deletes, so replicas
 * cannot undo each other's work.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';

/** The accounts every active namespace gets (Kubernetes' DefaultServiceAccountsControllerOptions). */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

const LABEL = 'service account controller';

/** Not being deleted (Kubernetes creates only in an Active namespace). */
export function namespaceActive(ns: ApiObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return !ns.metadata?.deletionTimestamp && (phase === undefined || phase === 'Active');
}

/** A create refused because the namespace is gone or going: nothing to retry. */
export function namespaceGoingAway(err: unknown): boolean {
  const e = err as { code?: number; details?: { kind?: string; causes?: { reason?: string }[] } };
  if (e.code === 404 && e.details?.kind === 'namespaces') return true;
  return e.code === 403 && !!e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}

export const isAlreadyExists = (err: unknown): boolean => (err as { reason?: string }).reason === 'AlreadyExists';

/**
 * A feed of namespaces for controllers that keep something in each: `known` follows every
 * namespace (name -> active) and each active one is queued whenever it is seen.
 */
export function activeNamespaceFeed(store: GenericStore, known: Map<string, boolean>, queue: WorkQueue, label: string): ResourceFeed {
  return new ResourceFeed(store, {
    upsert: (ns) => {
      const name = ns.metadata?.name as string;
      known.set(name, namespaceActive(ns));
      if (namespaceActive(ns)) queue.add(name);
    },
    remove: (ns) => { known.delete(ns.metadata?.name as string); },
  }, label);
}

export class ServiceAccountController {
  private readonly queue: WorkQueue;
  private readonly feeds: ResourceFeed[] = [];
  /** Namespace -> active, as the namespace feed last reported it. */
  private readonly namespaces = new Map<string, boolean>();
  /** Namespaces whose `default` account the account feed has seen. */
  private readonly present = new Set<string>();
  /** Kubernetes' controllers write as kube-controller-manager. */
  private readonly fieldManager: string;

  constructor(private readonly namespaceStore: GenericStore, private readonly accounts: GenericStore, naming: Naming) {
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    this.queue = new WorkQueue((ns) => this.sync(ns), {
      maxDelayMs: 10_000,
      onError: (ns, err) => logger.warn(`${LABEL}: will retry`, { namespace: ns, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server has core namespaces and serviceaccounts, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming): ServiceAccountController | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const namespaces = find('namespaces');
    const accounts = find('serviceaccounts');
    return namespaces && accounts ? new ServiceAccountController(namespaces, accounts, naming) : undefined;
  }

  /** Accounts first, so that the namespaces queued at start find the accounts already there known. */
  async start(): Promise<void> {
    const accountFeed = new ResourceFeed(this.accounts, {
      upsert: (sa) => { if (sa.metadata?.name === DEFAULT_SERVICE_ACCOUNT) this.present.add(sa.metadata.namespace as string); },
      remove: (sa) => {
        if (sa.metadata?.name !== DEFAULT_SERVICE_ACCOUNT) return;
        this.present.delete(sa.metadata.namespace as string);
        this.queue.add(sa.metadata.namespace as string);
      },
    }, LABEL, { metadataOnly: true });
    await accountFeed.start();
    this.feeds.push(accountFeed);
    const namespaceFeed = activeNamespaceFeed(this.namespaceStore, this.namespaces, this.queue, LABEL);
    await namespaceFeed.start();
    this.feeds.push(namespaceFeed);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.feeds.map((f) => f.stop()));
  }

  private async sync(namespace: string): Promise<void> {
    if (!this.namespaces.get(namespace) || this.present.has(namespace)) return;
    // The feed may not show a deletion that just began: a new account there would only be deleted again.
    const live = await this.namespaceStore.get(undefined, namespace).catch((err) => {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    });
    if (!live || !namespaceActive(live)) return;
    const account: ApiObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } };
    try {
      await this.accounts.create({ namespace }, account, { dryRun: false, fieldManager: this.fieldManager });
      logger.info(`${LABEL}: created`, { namespace, serviceAccount: DEFAULT_SERVICE_ACCOUNT });
    } catch (err) {
      // Another replica (or a user) was first, or the namespace is going: done either way.
      if (isAlreadyExists(err) || namespaceGoingAway(err)) return;
      throw err;
    }
  }
}
