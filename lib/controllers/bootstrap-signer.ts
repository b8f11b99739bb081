/**
 * The bootstrap signer (kube-controller-manager's `bootstrapsigner`): the ConfigMap
 * `cluster-info` in the public namespace holds `kubeconfig` (the CA and the URL of this server,
 * for clients that trust nothing yet) and one `jws-kubeconfig-<token-id>` per bootstrap token
 * that may sign (usage-bootstrap-signing "true", not expired): a detached HS256 JWS of the
 * kubeconfig (cluster-info-jws.ts; the key is the full token in the orch flavor, as the spec
 * says, and the token secret alone in the kubernetes flavor, as Kubernetes and kubeadm do).
 * Signatures of expired or deleted tokens are removed, at the expiration itself by a timer, and
 * a changed kubeconfig is signed again.
 *
 * Kubernetes leaves creating cluster-info to kubeadm; here the signer creates it when missing
 * (and adds `kubeconfig` when absent) once the server's URL is known. A kubeconfig someone else
 * wrote (an external load-balancer address, say) is kept and signed as it is.
 *
 * Safe to run in every replica at once: HMAC signatures are deterministic, every write is a
 * compare-and-swap (guaranteedUpdate) and a create that finds the ConfigMap signs that one.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { KeyWatch } from './key-watch';
import { WorkQueue } from './work-queue';
import { DeadlineTimers } from './deadline-timers';
import { ServerUrlHolder } from './server-url';
import { isBootstrapTokenSecret, signingTokenOf } from './bootstrap-token-secret';
import { signDetached, signingKey } from './cluster-info-jws';
import { isAlreadyExists } from './service-account-controller';

export const CLUSTER_INFO = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const SIGNATURE_PREFIX = 'jws-kubeconfig-';

const LABEL = 'bootstrap signer';
const code = (err: unknown): number | undefined => (err as { code?: number }).code;

/** The kubeconfig cluster-info publishes: one unnamed cluster, as kubeadm writes it. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem, 'utf8').toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

/** The kubeconfig changed between reading and writing: the sync runs again. */
class ContentChanged extends Error {}

export class BootstrapSigner {
  private readonly queue: WorkQueue;
  private readonly feed: ResourceFeed;
  private readonly configMapWatch: KeyWatch;
  private readonly expiry: DeadlineTimers;
  /** Bootstrap token Secrets by name, from the feed. */
  private readonly tokens = new Map<string, ApiObject>();
  private readonly fieldManager: string;
  private unsubscribe?: () => void;

  constructor(private readonly secrets: GenericStore, private readonly configMaps: GenericStore, private readonly naming: Naming,
    /** The CA clients should trust (PEM). */
    private readonly caPem: string, private readonly serverUrl: ServerUrlHolder) {
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    this.queue = new WorkQueue(() => this.sync(), {
      workers: 1, maxDelayMs: 10_000,
      onError: (_key, err) => logger.warn(`${LABEL}: will retry`, { error: err instanceof Error ? err.message : String(err) }),
    });
    const poke = () => this.queue.add(CLUSTER_INFO);
    this.expiry = new DeadlineTimers(poke);
    this.feed = new ResourceFeed(secrets, {
      upsert: (s) => {
        if (s.metadata?.namespace !== naming.systemNamespace) return;
        if (isBootstrapTokenSecret(s, naming)) this.tokens.set(String(s.metadata?.name), s);
        else if (!this.tokens.delete(String(s.metadata?.name))) return;
        poke();
      },
      remove: (s) => {
        if (s.metadata?.namespace === naming.systemNamespace && this.tokens.delete(String(s.metadata?.name))) poke();
      },
    }, LABEL);
    // Watches are by '/'-terminated prefix: the public namespace's ConfigMaps, ours picked out.
    const namespacePrefix = `${configMaps.collectionPrefix()}${naming.publicNamespace}/`;
    const key = `${namespacePrefix}${CLUSTER_INFO}`;
    this.configMapWatch = new KeyWatch(configMaps, namespacePrefix, (k) => { if (k === key) poke(); }, poke, LABEL);
  }

  /** The signer when the server has core Secrets and ConfigMaps, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, caPem: string, serverUrl: ServerUrlHolder): BootstrapSigner | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const secrets = find('secrets');
    const configMaps = find('configmaps');
    return secrets && configMaps ? new BootstrapSigner(secrets, configMaps, naming, caPem, serverUrl) : undefined;
  }

  async start(): Promise<void> {
    await this.configMapWatch.start();
    await this.feed.start();
    this.unsubscribe = this.serverUrl.onSet(() => this.queue.add(CLUSTER_INFO));
    this.queue.add(CLUSTER_INFO);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.expiry.clearAll();
    await this.feed.stop();
    await this.configMapWatch.stop();
    await this.queue.stop();
  }

  /** token-id -> signature of `content` by every token that may sign now; arms the expiry timer. */
  private async signatures(content: string): Promise<Map<string, string>> {
    const now = Date.now();
    const out = new Map<string, string>();
    let nextExpiry: number | undefined;
    for (const secret of this.tokens.values()) {
      const token = signingTokenOf(secret, now);
      // Kubernetes: a duplicate id is ignored (names make it impossible in practice).
      if (!token || out.has(token.id)) continue;
      out.set(token.id, await signDetached(content, token.id, signingKey(this.naming.flavor, token.id, token.secret)));
      if (token.expiresAt !== undefined && (nextExpiry === undefined || token.expiresAt < nextExpiry)) nextExpiry = token.expiresAt;
    }
    if (nextExpiry === undefined) this.expiry.clear(CLUSTER_INFO);
    else this.expiry.set(CLUSTER_INFO, nextExpiry + 1);
    return out;
  }

  private async current(): Promise<ApiObject | undefined> {
    try {
      return await this.configMaps.get(this.naming.publicNamespace, CLUSTER_INFO);
    } catch (err) {
      if (code(err) === 404) return undefined;
      throw err;
    }
  }

  private async sync(): Promise<void> {
    const ctx = { namespace: this.naming.publicNamespace };
    const opts = { dryRun: false, fieldManager: this.fieldManager };
    const url = this.serverUrl.get();
    const ours = url ? clusterInfoKubeconfig(url, this.caPem) : undefined;
    let cm = await this.current();
    if (!cm) {
      if (!ours) return; // signed once the server listens (serverUrl.onSet)
      const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO }, data: { [KUBECONFIG_KEY]: ours } };
      try {
        cm = await this.configMaps.create(ctx, created, opts);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        cm = await this.current();
        if (!cm) throw err;
      }
    }
    const content = (cm.data as Record<string, string> | undefined)?.[KUBECONFIG_KEY] ?? ours;
    if (content === undefined) return;
    const signatures = await this.signatures(content);
    try {
      await this.configMaps.guaranteedUpdate(ctx, CLUSTER_INFO, (live) => {
        const data = { ...((live.data ?? {}) as Record<string, string>) };
        if ((data[KUBECONFIG_KEY] ?? ours) !== content) throw new ContentChanged('cluster-info kubeconfig changed while signing');
        let changed = data[KUBECONFIG_KEY] === undefined;
        data[KUBECONFIG_KEY] = content;
        for (const key of Object.keys(data)) {
          if (!key.startsWith(SIGNATURE_PREFIX) || signatures.has(key.slice(SIGNATURE_PREFIX.length))) continue;
          delete data[key];
          changed = true;
        }
        for (const [id, sig] of signatures) {
          if (data[SIGNATURE_PREFIX + id] === sig) continue;
          data[SIGNATURE_PREFIX + id] = sig;
          changed = true;
        }
        return changed ? { ...live, data } : undefined;
      }, opts);
    } catch (err) {
      if (code(err) === 404) {
        this.queue.add(CLUSTER_INFO); // deleted meanwhile: made again
        return;
      }
      if (code(err) === 422) {
        // Made immutable: nothing this controller writes can land.
        logger.warn(`${LABEL}: cannot update`, { namespace: ctx.namespace, configMap: CLUSTER_INFO, error: (err as Error).message });
        return;
      }
      throw err;
    }
  }
}
