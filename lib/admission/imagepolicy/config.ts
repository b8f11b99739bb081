/**
 * ImagePolicyWebhook's configuration: the `imagePolicy` section of its entry in
 * --admission-control-config-file, read as Kubernetes' plugin reads it. allowTTL and denyTTL are
 * whole seconds, retryBackoff whole milliseconds; 0 (or absent) takes the default (5 min, 30 s,
 * 500 ms), -1 disables (no caching, no wait between retries); anything else must lie in
 * (1s, 30m] for the TTLs and (1ns, 5m] for the backoff, checked with kube's message. A bad value
 * is an Error whose message is one line (the registry prefixes the plugin's name).
 */
import { formatGoDuration } from '../../meta/go-duration';

/** The plugin's settings, durations in milliseconds. */
export interface ImagePolicyConfig {
  /** Path of the kubeconfig-format file naming the backend (https) and the credentials. */
  kubeConfigFile: string;
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  /** What a backend failure decides: allow (fail open) or refuse. */
  defaultAllow: boolean;
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

interface Bounds { name: string; scaleNs: bigint; minNs: bigint; maxNs: bigint; defaultMs: number }

const RETRY_BACKOFF: Bounds = { name: 'retryBackoff', scaleNs: NS_PER_MS, minNs: 1n, maxNs: 300n * NS_PER_S, defaultMs: 500 };
const ALLOW_TTL: Bounds = { name: 'allowTTL', scaleNs: NS_PER_S, minNs: NS_PER_S, maxNs: 1800n * NS_PER_S, defaultMs: 300_000 };
const DENY_TTL: Bounds = { name: 'denyTTL', scaleNs: NS_PER_S, minNs: NS_PER_S, maxNs: 1800n * NS_PER_S, defaultMs: 30_000 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One duration field: the sentinels, then kube's range check (exclusive minimum, inclusive maximum). */
function duration(section: Record<string, unknown>, b: Bounds): number {
  const raw = section[b.name];
  if (raw === undefined || raw === null || raw === 0) return b.defaultMs;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) {
    throw new Error(`imagePolicy.${b.name} must be a whole number of ${b.scaleNs === NS_PER_S ? 'seconds' : 'milliseconds'}, got ${JSON.stringify(raw)}`);
  }
  if (raw === -1) return 0;
  const ns = BigInt(raw) * b.scaleNs;
  if (ns <= b.minNs || ns > b.maxNs) {
    throw new Error(`valid value is between ${formatGoDuration(b.minNs)} and ${formatGoDuration(b.maxNs)}, got ${formatGoDuration(ns)}`);
  }
  return Number(ns / NS_PER_MS);
}

/**
 * The plugin's configuration from its parsed section (an object, or undefined when the
 * AdmissionConfiguration has no entry for it: kube's "no config specified").
 */
export function parseImagePolicyConfig(pluginConfig: unknown): ImagePolicyConfig {
  if (pluginConfig === undefined || pluginConfig === null) throw new Error('no config specified');
  if (!isObject(pluginConfig)) throw new Error('the configuration must be an object with an imagePolicy section');
  const section = pluginConfig.imagePolicy ?? {};
  if (!isObject(section)) throw new Error('imagePolicy must be an object');
  const file = section.kubeConfigFile ?? '';
  if (typeof file !== 'string') throw new Error('imagePolicy.kubeConfigFile must be a string');
  const defaultAllow = section.defaultAllow ?? false;
  if (typeof defaultAllow !== 'boolean') throw new Error(`imagePolicy.defaultAllow must be true or false, got ${JSON.stringify(defaultAllow)}`);
  // kube's order of checks: the backoff, then the allow and deny caches.
  const retryBackoffMs = duration(section, RETRY_BACKOFF);
  const allowTtlMs = duration(section, ALLOW_TTL);
  const denyTtlMs = duration(section, DENY_TTL);
  if (!file) throw new Error('imagePolicy.kubeConfigFile is required: the kubeconfig-format file of the backend');
  return { kubeConfigFile: file, allowTtlMs, denyTtlMs, retryBackoffMs, defaultAllow };
}
