/**
 * The token cleaner (kube-controller-manager's `tokencleaner`): a bootstrap token Secret (the
 * bootstrap token type, in the system namespace) is deleted once its `expiration` has passed.
 * One timer per token fires at its expiration, so a token goes when it expires and not at the
 * next change of some Secret; an expiration that is not RFC 3339 counts as passed.
 *
 * Safe to run in every replica at once: the delete carries the Secret's uid as precondition,
 * and NotFound or Conflict mean someone else (another replica, the user) was first.
 */
import { GenericStore } from '../registry/store';
import { deleteObject } from '../registry/delete';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';
import { DeadlineTimers } from './deadline-timers';
import { expirationOf, isBootstrapTokenSecret } from './bootstrap-token-secret';

const LABEL = 'token cleaner';

const code = (err: unknown): number | undefined => (err as { code?: number }).code;

export class TokenCleaner {
  private readonly queue: WorkQueue;
  private readonly feed: ResourceFeed;
  private readonly timers: DeadlineTimers;

  constructor(private readonly secrets: GenericStore, private readonly naming: Naming) {
    this.queue = new WorkQueue((name) => this.sync(name), {
      maxDelayMs: 10_000,
      onError: (name, err) => logger.warn(`${LABEL}: will retry`, { secret: name, error: err instanceof Error ? err.message : String(err) }),
    });
    this.timers = new DeadlineTimers((name) => this.queue.add(name));
    this.feed = new ResourceFeed(secrets, {
      upsert: (s) => this.seen(s),
      remove: (s) => {
        if (s.metadata?.namespace !== naming.systemNamespace) return;
        this.timers.clear(String(s.metadata?.name ?? ''));
      },
    }, LABEL);
  }

  /** The cleaner when the server has core Secrets, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming): TokenCleaner | undefined {
    const secrets = [...stores].find((s) => s.def.group === '' && s.def.resource === 'secrets');
    return secrets ? new TokenCleaner(secrets, naming) : undefined;
  }

  async start(): Promise<void> {
    await this.feed.start();
  }

  async stop(): Promise<void> {
    this.timers.clearAll();
    await this.feed.stop();
    await this.queue.stop();
  }

  private seen(secret: ApiObject): void {
    if (secret.metadata?.namespace !== this.naming.systemNamespace) return;
    const name = String(secret.metadata?.name ?? '');
    if (!isBootstrapTokenSecret(secret, this.naming)) {
      // Its type cannot change, but a Secret of that name may have been replaced.
      this.timers.clear(name);
      return;
    }
    const expiresAt = expirationOf(secret);
    if (expiresAt === undefined) this.timers.clear(name);
    else if (expiresAt <= Date.now()) this.queue.add(name);
    // A millisecond late: the deadline itself is still "not yet" by `<=` on a coarse clock.
    else this.timers.set(name, expiresAt + 1);
  }

  private async sync(name: string): Promise<void> {
    const ns = this.naming.systemNamespace;
    let secret: ApiObject;
    try {
      secret = await this.secrets.get(ns, name);
    } catch (err) {
      if (code(err) === 404) return;
      throw err;
    }
    if (!isBootstrapTokenSecret(secret, this.naming)) return;
    const expiresAt = expirationOf(secret);
    if (expiresAt === undefined) return;
    if (expiresAt > Date.now()) {
      this.timers.set(name, expiresAt + 1);
      return;
    }
    const uid = String(secret.metadata?.uid ?? '');
    try {
      await deleteObject(this.secrets, { namespace: ns }, name, { preconditions: uid ? { uid } : undefined }, { dryRun: false });
      logger.info(`${LABEL}: deleted an expired bootstrap token`, { namespace: ns, secret: name });
    } catch (err) {
      if (code(err) !== 404 && code(err) !== 409) throw err;
    }
  }
}
