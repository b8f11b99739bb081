/**
 * The root CA publisher (Kubernetes' rootcacertpublisher): every active namespace has the
 * ConfigMap `orch-root-ca.crt` (`kube-root-ca.crt`) whose `ca.crt` is the CA that clients verify
 * this server with (--root-ca-file, else the generated CA), annotated `<label domain>/description`.
 * Created at start and for new namespaces, created again when deleted, rewritten when edited.
 * Driven by a feed of namespaces and a watch on ConfigMaps that looks at keys only (no ConfigMap
 * is parsed unless it is ours), so ConfigMap-heavy clusters pay next to nothing for it.
 *
 * Safe to run in every replica at once: a missing ConfigMap is created with a compare on the key
 * being absent (AlreadyExists: the other's copy is checked instead), and a repair is a
 * guaranteedUpdate (compare on mod_revision, retried from a fresh read). Replicas that publish
 * the same CA write the same content and stop. Replicas with different CAs would take turns
 * forever if each replaced the other's bundle, so content that only the publisher has written
 * (managedFields) is kept and this server's certificates are added to it: the bundle converges to
 * every replica's CA, which is what a client reaching either needs. Content anyone else wrote is
 * replaced outright, as Kubernetes does. Expired certificates of others are dropped.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { CertificatePool } from '../authn/cert-pool';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { KeyWatch } from './key-watch';
import { WorkQueue } from './work-queue';
import { activeNamespaceFeed, isAlreadyExists, namespaceActive, namespaceGoingAway } from './service-account-controller';

export const ROOT_CA_KEY = 'ca.crt';
/** Kubernetes' text, word for word. */
export const ROOT_CA_DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. '
  + 'No other usage is guaranteed across distributions of Kubernetes clusters.';

const LABEL = 'root CA publisher';
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** --root-ca-file's contents, which must hold PEM certificates; else a one-line Error naming the flag and file. */
export function readRootCaFile(file: string): string {
  const source = `--root-ca-file=${file}`;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  CertificatePool.fromPem(pem, source);
  return pem;
}

interface Certificate { block: string; der: string; expired: boolean }

/** The bundle's certificates; undefined when it has none or one does not parse. */
function certificatesOf(pem: string, now: Date): Certificate[] | undefined {
  const out: Certificate[] = [];
  for (const block of pem.match(PEM_CERTIFICATE) ?? []) {
    try {
      const cert = new X509Certificate(block);
      out.push({ block, der: cert.raw.toString('base64'), expired: Date.parse(cert.validTo) <= now.getTime() });
    } catch {
      return undefined;
    }
  }
  return out.length ? out : undefined;
}

/**
 * The `ca.crt` the ConfigMap should hold. `current`: what it holds; `publisherWritten`: only the
 * publisher (of some replica) wrote it. Anything not publisher-written becomes `ours` verbatim.
 * Publisher-written content is kept when it has all of our unexpired certificates and nothing
 * expired; otherwise it becomes its unexpired certificates plus our unexpired ones (ours
 * verbatim when none is left). Two replicas' answers agree after one write each.
 */
export function rootCaBundle(current: string | undefined, publisherWritten: boolean, ours: string, now: Date): string {
  if (!publisherWritten || current === undefined || current === ours) return ours;
  const theirs = certificatesOf(current, now);
  if (!theirs) return ours;
  const mine = (certificatesOf(ours, now) ?? []).filter((c) => !c.expired);
  const present = new Set(theirs.map((c) => c.der));
  if (theirs.every((c) => !c.expired) && mine.every((c) => present.has(c.der))) return current;
  const mineDer = new Set(mine.map((c) => c.der));
  const kept = [...theirs.filter((c) => !c.expired && !mineDer.has(c.der)), ...mine];
  return kept.length ? kept.map((c) => `${c.block}\n`).join('') : ours;
}

/** Whether `manager` is the only one owning `data.<key>` in the object's managedFields. */
export function onlyWrittenBy(obj: ApiObject, key: string, manager: string): boolean {
  const entries = obj.metadata?.managedFields;
  if (!Array.isArray(entries)) return false;
  const owners = entries.filter((e) => {
    const data = (e as { fieldsV1?: Record<string, unknown> }).fieldsV1?.['f:data'] as Record<string, unknown> | undefined;
    return !!data && typeof data === 'object' && `f:${key}` in data;
  });
  return owners.length > 0 && owners.every((e) => (e as { manager?: string }).manager === manager);
}

export class RootCaPublisher {
  private readonly queue: WorkQueue;
  private readonly name: string;
  private readonly annotation: string;
  private readonly fieldManager: string;
  /** Namespace -> active, as the namespace feed last reported it. */
  private readonly namespaces = new Map<string, boolean>();
  private namespaceFeed?: ResourceFeed;
  private readonly configMapWatch: KeyWatch;

  constructor(private readonly namespaceStore: GenericStore, private readonly configMaps: GenericStore, naming: Naming,
    /** The CA bundle to publish (PEM). */
    private readonly rootCaPem: string) {
    this.name = naming.rootCaConfigMapName;
    this.annotation = `${naming.labelDomain}/description`;
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    // Every ConfigMap change, by key `<prefix><namespace>/<name>`: ours queue their namespace;
    // after a restart every namespace is looked at again.
    const prefix = this.configMaps.collectionPrefix();
    const suffix = `/${this.name}`;
    this.configMapWatch = new KeyWatch(this.configMaps, prefix, (key) => {
      if (!key.endsWith(suffix)) return;
      const namespace = key.slice(prefix.length, key.length - suffix.length);
      if (namespace && !namespace.includes('/')) this.queue.add(namespace);
    }, () => { for (const [ns, active] of this.namespaces) if (active) this.queue.add(ns); }, LABEL);
    this.queue = new WorkQueue((ns) => this.sync(ns), {
      maxDelayMs: 10_000,
      onError: (ns, err) => logger.warn(`${LABEL}: will retry`, { namespace: ns, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The publisher when the server has core namespaces and configmaps, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, rootCaPem: string): RootCaPublisher | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const namespaces = find('namespaces');
    const configMaps = find('configmaps');
    return namespaces && configMaps ? new RootCaPublisher(namespaces, configMaps, naming, rootCaPem) : undefined;
  }

  /** Watches ConfigMaps first, then queues every namespace (the feed's initial state). */
  async start(): Promise<void> {
    await this.configMapWatch.start();
    this.namespaceFeed = activeNamespaceFeed(this.namespaceStore, this.namespaces, this.queue, LABEL);
    await this.namespaceFeed.start();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await this.namespaceFeed?.stop();
    await this.configMapWatch.stop();
  }


  /** The ConfigMap `cm` repaired, or undefined when it is as it should be. */
  private repair(cm: ApiObject): ApiObject | undefined {
    const data = (cm.data ?? {}) as Record<string, string>;
    const bundle = rootCaBundle(data[ROOT_CA_KEY], onlyWrittenBy(cm, ROOT_CA_KEY, this.fieldManager), this.rootCaPem, new Date());
    const annotations = cm.metadata?.annotations ?? {};
    const keys = Object.keys(data);
    // As Kubernetes: the data exactly, and a description (any non-empty one is left).
    if (keys.length === 1 && data[ROOT_CA_KEY] === bundle && annotations[this.annotation]) return undefined;
    return { ...cm, data: { [ROOT_CA_KEY]: bundle }, metadata: { ...cm.metadata, annotations: { ...annotations, [this.annotation]: ROOT_CA_DESCRIPTION } } };
  }

  private async sync(namespace: string): Promise<void> {
    if (!this.namespaces.get(namespace)) return;
    const ctx = { namespace };
    const opts = { dryRun: false, fieldManager: this.fieldManager };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.configMaps.guaranteedUpdate(ctx, this.name, (cm) => {
          const next = this.repair(cm);
          // Recorded as an API write would be: whether content is the publisher's is read from it.
          if (next?.metadata) next.metadata.managedFields = this.configMaps.trackUpdate(cm, next, opts, cm.metadata?.managedFields);
          return next;
        }, opts);
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        // Made immutable by someone: Kubernetes could not repair it either; retrying will not help.
        if (code === 422) {
          logger.warn(`${LABEL}: cannot repair`, { namespace, configMap: this.name, error: (err as Error).message });
          return;
        }
        if (code !== 404) throw err;
      }
      // The feed may not show a deletion that just began: a new ConfigMap there would only be deleted again.
      const live = await this.namespaceStore.get(undefined, namespace).catch((err) => {
        if ((err as { code?: number }).code === 404) return undefined;
        throw err;
      });
      if (!live || !namespaceActive(live)) return;
      const cm: ApiObject = {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: this.name, annotations: { [this.annotation]: ROOT_CA_DESCRIPTION } },
        data: { [ROOT_CA_KEY]: this.rootCaPem },
      };
      try {
        await this.configMaps.create(ctx, cm, opts);
        return;
      } catch (err) {
        if (namespaceGoingAway(err)) return;
        // Another replica was first: look at its copy.
        if (!isAlreadyExists(err)) throw err;
      }
    }
    throw new Error(`${this.name} in ${namespace} keeps appearing and disappearing`);
  }
}
