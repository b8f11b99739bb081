/**
 * The CSR cleaner (kube-controller-manager's `csrcleaner`): every poll (hourly, as Kubernetes)
 * deletes the CertificateSigningRequests that are
 * - approved with a certificate issued, 1 hour after the Approved condition's lastUpdateTime
 *   (as Kubernetes: an approved request still waiting for its signer is left to it);
 * - denied, or failed, 1 hour after that condition's lastUpdateTime;
 * - pending (no condition at all), 24 hours after creation;
 * - approved with a certificate that has expired.
 * A condition without lastUpdateTime never ages, and a certificate that does not parse leaves
 * its request alone, as in Kubernetes.
 *
 * Safe to run in every replica at once: each delete carries the request's uid as precondition.
 */
import { X509Certificate } from 'node:crypto';
import { GenericStore } from '../registry/store';
import { deleteObject } from '../registry/delete';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';

const LABEL = 'CSR cleaner';
const HOUR = 3_600_000;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** How long requests are kept, and how often they are looked at (ms). */
export interface CsrRetention {
  pollIntervalMs: number;
  approvedMs: number;
  deniedMs: number;
  failedMs: number;
  pendingMs: number;
}

/** Kubernetes' figures. */
export const DEFAULT_CSR_RETENTION: CsrRetention = { pollIntervalMs: HOUR, approvedMs: HOUR, deniedMs: HOUR, failedMs: HOUR, pendingMs: 24 * HOUR };

interface Condition { type?: string; lastUpdateTime?: string }

/** Whether a time was set and lies more than `ms` before `now`. */
function olderThan(time: unknown, ms: number, now: number): boolean {
  const t = typeof time === 'string' && time ? Date.parse(time) : NaN;
  return !Number.isNaN(t) && now - t > ms;
}

/** NotAfter of the first certificate of the PEM (ms); throws when there is none or it does not parse. */
function notAfter(pem: string): number {
  const block = PEM_CERTIFICATE.exec(pem);
  if (!block) throw new Error('expected the certificate associated with the CSR to be PEM encoded');
  return Date.parse(new X509Certificate(block[0]).validTo);
}

/**
 * Why the request is due for deletion at `now`, or undefined when it is not (a pure function of
 * the object: the spec's retention rows). Throws on an issued certificate that does not parse.
 */
export function csrDueReason(csr: ApiObject, retention: CsrRetention, now: number): string | undefined {
  const status = (csr.status ?? {}) as { conditions?: Condition[]; certificate?: string };
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  // The API carries the certificate base64-encoded (bytes); it may also be held as PEM text.
  const raw = typeof status.certificate === 'string' && status.certificate ? status.certificate : undefined;
  const pem = raw && !raw.includes('-----BEGIN') ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const approved = conditions.filter((c) => c?.type === 'Approved');
  if (pem && approved.length) {
    if (approved.some((c) => olderThan(c.lastUpdateTime, retention.approvedMs, now))) return 'approved';
    if (notAfter(pem) < now) return 'certificate expired';
  }
  if (conditions.some((c) => c?.type === 'Denied' && olderThan(c.lastUpdateTime, retention.deniedMs, now))) return 'denied';
  if (conditions.some((c) => c?.type === 'Failed' && olderThan(c.lastUpdateTime, retention.failedMs, now))) return 'failed';
  if (!conditions.length && olderThan(csr.metadata?.creationTimestamp, retention.pendingMs, now)) return 'pending';
  return undefined;
}

export class CsrCleaner {
  private readonly feed: ResourceFeed;
  /** name -> request, from the feed. */
  private readonly requests = new Map<string, ApiObject>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly csrs: GenericStore, private readonly retention: CsrRetention = DEFAULT_CSR_RETENTION) {
    this.feed = new ResourceFeed(csrs, {
      upsert: (o) => { this.requests.set(String(o.metadata?.name), o); },
      remove: (o) => { this.requests.delete(String(o.metadata?.name)); },
    }, LABEL);
  }

  /** The cleaner when the server serves CertificateSigningRequests, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, retention?: CsrRetention): CsrCleaner | undefined {
    const group = naming.group('certificates');
    const csrs = [...stores].find((s) => s.def.group === group && s.def.resource === 'certificatesigningrequests');
    return csrs ? new CsrCleaner(csrs, retention) : undefined;
  }

  /** Follows the requests and polls: at once, then every interval (Kubernetes' wait.Until). */
  async start(): Promise<void> {
    await this.feed.start();
    this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.feed.stop();
    await this.running;
  }

  private poll(): void {
    if (this.stopped) return;
    this.running = this.clean().finally(() => {
      if (this.stopped) return;
      this.timer = setTimeout(() => this.poll(), this.retention.pollIntervalMs);
      this.timer.unref();
    });
  }

  private async clean(): Promise<void> {
    const now = Date.now();
    for (const csr of [...this.requests.values()]) {
      if (this.stopped) return;
      const name = String(csr.metadata?.name);
      try {
        const reason = csrDueReason(csr, this.retention, now);
        if (!reason) continue;
        const uid = csr.metadata?.uid as string | undefined;
        await deleteObject(this.csrs, {}, name, { preconditions: uid ? { uid } : undefined }, { dryRun: false });
        logger.info(`${LABEL}: deleted a certificate signing request`, { name, reason });
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === 404 || code === 409) continue;
        logger.error(`${LABEL}: cannot clean a certificate signing request`, { name, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}
