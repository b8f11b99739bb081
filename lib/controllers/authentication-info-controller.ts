/**
 * Publishes how this server authenticates in the ConfigMap `extension-apiserver-authentication`
 * of the system namespace (Kubernetes' cluster-authentication-trust controller): the client CA,
 * and with an authenticating proxy the request-header CA, headers and allowed names. Extension
 * API servers read it to trust requests this server forwards.
 *
 * As Kubernetes, what is there is merged with what this server needs, never replaced: several
 * replicas (or servers) with different CAs each add theirs. Every change or deletion of the
 * ConfigMap is looked at at once, and everything once a minute.
 */
import { X509Certificate } from 'node:crypto';
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import type { ServerConfig } from '../config';
import { logger } from '../logger';
import { WorkQueue } from './work-queue';
import { KeyWatch } from './key-watch';
import { AUTHENTICATION_CONFIGMAP } from '../registry/core/configmaps/definition';

/** What this server needs published. */
export interface AuthenticationInfo {
  /** PEM bundle of --client-ca-file (or the generated CA). */
  clientCaPem: string;
  /** Present with --requestheader-client-ca-file. */
  requestHeader?: {
    caPem: string;
    usernameHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeaderPrefixes: readonly string[];
    allowedNames: readonly string[];
  };
}

const CLIENT_CA = 'client-ca-file';
const REQUESTHEADER_CA = 'requestheader-client-ca-file';
/** The list keys, each a JSON array of strings; uid headers are Kubernetes' (this server names none). */
const LISTS = ['requestheader-username-headers', 'requestheader-uid-headers', 'requestheader-group-headers',
  'requestheader-extra-headers-prefix', 'requestheader-allowed-names'] as const;
type ListKey = typeof LISTS[number];

/** A CA that expired more than this long ago is dropped from the bundles (Kubernetes' slack). */
const EXPIRED_SLACK_MS = 5 * 60_000;
const RESYNC_MS = 60_000;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The ConfigMap's data: `existing` merged with `required` (lists: existing entries first, no
 * repeats; bundles: both sets of certificates, unexpired, without repeats). Keys other than
 * Kubernetes' are dropped; the request-header keys are written only with a request-header CA.
 * An existing value that does not parse counts as absent, so that a damaged ConfigMap is repaired.
 */
export function authenticationData(existing: Record<string, string> | undefined, required: AuthenticationInfo, now: Date,
  warn: (message: string) => void = () => undefined): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCa = mergeBundles(existing?.[CLIENT_CA], required.clientCaPem, now, warn);
  if (clientCa) data[CLIENT_CA] = clientCa;
  const requestHeaderCa = mergeBundles(existing?.[REQUESTHEADER_CA], required.requestHeader?.caPem, now, warn);
  if (!requestHeaderCa) return data;
  const ours: Record<ListKey, readonly string[]> = {
    'requestheader-username-headers': required.requestHeader?.usernameHeaders ?? [],
    'requestheader-uid-headers': [],
    'requestheader-group-headers': required.requestHeader?.groupHeaders ?? [],
    'requestheader-extra-headers-prefix': required.requestHeader?.extraHeaderPrefixes ?? [],
    'requestheader-allowed-names': required.requestHeader?.allowedNames ?? [],
  };
  for (const key of LISTS) data[key] = JSON.stringify([...new Set([...parseList(existing?.[key], key, warn), ...ours[key]])]);
  data[REQUESTHEADER_CA] = requestHeaderCa;
  return data;
}

function parseList(value: string | undefined, key: string, warn: (message: string) => void): string[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null) return [];
    if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return parsed;
  } catch { /* reported below */ }
  warn(`${AUTHENTICATION_CONFIGMAP}: ${key} is not a JSON list of strings; replaced`);
  return [];
}

/** Both bundles' certificates, unexpired and each once, as PEM; undefined when none is left. */
function mergeBundles(existing: string | undefined, required: string | undefined, now: Date, warn: (message: string) => void): string | undefined {
  const seen = new Set<string>();
  let out = '';
  for (const bundle of [existing, required]) {
    for (const block of bundle?.match(PEM_CERTIFICATE) ?? []) {
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(block);
      } catch {
        warn(`${AUTHENTICATION_CONFIGMAP}: a certificate does not parse; dropped`);
        continue;
      }
      if (Date.parse(cert.validTo) <= now.getTime() - EXPIRED_SLACK_MS) continue;
      const der = cert.raw.toString('base64');
      if (seen.has(der)) continue;
      seen.add(der);
      out += `-----BEGIN CERTIFICATE-----\n${der.replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
    }
  }
  return out || undefined;
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b).length && ak.every((k) => b[k] === a![k]);
}

export class AuthenticationInfoController {
  private readonly queue: WorkQueue;
  private readonly namespace: string;
  private readonly fieldManager: string;
  private readonly watch: KeyWatch;
  private resync?: NodeJS.Timeout;

  constructor(private readonly configMaps: GenericStore, naming: Naming, private info: AuthenticationInfo) {
    this.namespace = naming.systemNamespace;
    // The manager Kubernetes' own write records (client-go's user agent, up to the '/').
    this.fieldManager = naming.flavor === 'kubernetes' ? 'kube-apiserver' : 'orch-apiserver';
    // The system namespace's ConfigMaps, for ours; after a restart, what changed meanwhile is synced.
    const key = this.configMaps.key(this.namespace, AUTHENTICATION_CONFIGMAP);
    const queueSync = () => this.queue.add(AUTHENTICATION_CONFIGMAP);
    this.watch = new KeyWatch(this.configMaps, this.configMaps.collectionPrefix(this.namespace),
      (changed) => { if (changed === key) queueSync(); }, queueSync, AUTHENTICATION_CONFIGMAP);
    this.queue = new WorkQueue(() => this.sync(), {
      workers: 1, maxDelayMs: 10_000,
      onError: (_key, err) => logger.warn(`${AUTHENTICATION_CONFIGMAP}: write failed; will retry`, { error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller for the server's flags: `clientCaPem` is the client CA in effect, `requestheaderCaPem` the proxy's. */
  static forFlags(configMaps: GenericStore, naming: Naming, config: ServerConfig, clientCaPem: string, requestheaderCaPem?: string): AuthenticationInfoController {
    return new AuthenticationInfoController(configMaps, naming, {
      clientCaPem,
      requestHeader: requestheaderCaPem === undefined ? undefined : {
        caPem: requestheaderCaPem, usernameHeaders: config.requestheaderUsernameHeaders, groupHeaders: config.requestheaderGroupHeaders,
        extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix, allowedNames: config.requestheaderAllowedNames,
      },
    });
  }

  /** Follows the ConfigMap, then writes it (a failed first write is retried in the background). */
  async start(): Promise<void> {
    await this.watch.start();
    await this.sync().catch((err) => {
      logger.warn(`${AUTHENTICATION_CONFIGMAP}: first write failed; will retry`, { error: err instanceof Error ? err.message : String(err) });
      this.queue.add(AUTHENTICATION_CONFIGMAP);
    });
    this.resync = setInterval(() => this.queue.add(AUTHENTICATION_CONFIGMAP), RESYNC_MS);
    this.resync.unref();
  }

  /** The client CA file was reloaded (lib/server/tls-reload.ts): the ConfigMap gets the new bundle. */
  updateClientCa(clientCaPem: string): void {
    this.info = { ...this.info, clientCaPem };
    this.queue.add(AUTHENTICATION_CONFIGMAP);
  }

  async stop(): Promise<void> {
    if (this.resync) clearInterval(this.resync);
    await this.queue.stop();
    await this.watch.stop();
  }


  private async sync(): Promise<void> {
    const ctx = { namespace: this.namespace };
    const current = await this.configMaps.get(this.namespace, AUTHENTICATION_CONFIGMAP).catch((err) => {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    });
    const existing = current?.data as Record<string, string> | undefined;
    const data = authenticationData(existing, this.info, new Date(), (m) => logger.warn(m));
    if (current && sameData(existing, data)) return;
    if (!current) {
      const obj: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: this.namespace }, data };
      await this.configMaps.create(ctx, obj, { dryRun: false, fieldManager: this.fieldManager });
    } else {
      // A concurrent change makes this a conflict: the retry starts again from what is there then.
      await this.configMaps.updateWith(ctx, AUTHENTICATION_CONFIGMAP, (cur) => ({ ...cur, data }), {
        dryRun: false, fieldManager: this.fieldManager, precondition: current.metadata?.resourceVersion,
      });
    }
    logger.info(`${AUTHENTICATION_CONFIGMAP}: written`, { namespace: this.namespace });
  }
}
