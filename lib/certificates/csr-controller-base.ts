/**
 * The shape both certificate controllers share (Kubernetes' CertificateController): the requests
 * followed from the store's watch cache, each change queued by name, and a handler that reads the
 * request afresh and acts on it; a handler that throws is retried with a growing delay.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from '../controllers/work-queue';

/** The resource the certificate controllers follow. */
export const CSR_RESOURCE = 'certificatesigningrequests';

/** The CSR store of the server (`certificates.<domain>/v1`), if served. */
export function csrStore(stores: Iterable<GenericStore>, certificatesGroup: string): GenericStore | undefined {
  return [...stores].find((s) => s.def.group === certificatesGroup && s.def.resource === CSR_RESOURCE);
}

/** An error that is retried without a warning (Kubernetes' IgnorableError). */
export class IgnorableError extends Error {}

export abstract class CsrController {
  private readonly queue: WorkQueue;
  private feed?: ResourceFeed;

  constructor(protected readonly store: GenericStore, private readonly label: string) {
    this.queue = new WorkQueue((name) => this.sync(name), {
      onError: (name, err) => {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof IgnorableError) logger.debug(`${this.label}: ${message}`, { csr: name });
        else logger.warn(`${this.label}: will retry`, { csr: name, error: message });
      },
    });
  }

  /** Whether a request (as the watch delivered it) may need work: cheap, no I/O. */
  protected abstract interesting(csr: ApiObject): boolean;

  /** Acts on the current request. */
  protected abstract handle(csr: ApiObject): Promise<void>;

  async start(): Promise<void> {
    this.feed = new ResourceFeed(this.store, {
      upsert: (csr) => { if (this.interesting(csr)) this.queue.add(String(csr.metadata?.name ?? '')); },
      remove: () => undefined,
    }, this.label);
    await this.feed.start();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await this.feed?.stop();
  }

  private async sync(name: string): Promise<void> {
    let csr: ApiObject;
    try {
      csr = await this.store.get(undefined, name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    // A request that holds a certificate needs nothing more from any controller.
    if ((csr.status as { certificate?: unknown } | undefined)?.certificate) return;
    await this.handle(csr);
  }

  /** The controllers' field manager name. */
  protected static fieldManager(flavor: string): string {
    return `${flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
  }
}
