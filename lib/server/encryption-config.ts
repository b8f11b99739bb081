/**
 * --encryption-provider-config: an EncryptionConfiguration (`apiserver.config.orch.io/v1`;
 * Kubernetes' `apiserver.config.k8s.io/v1` is read too), JSON or YAML, naming for resources
 * (`secrets`, `configmaps`, `*.` for the core group, `*.<group>`, `*.*`, `<resource>.<group>`,
 * custom resources included) the providers that store them: aesgcm, aescbc, secretbox, identity,
 * in order (the first writes, all read). Validation and messages are kube-apiserver's
 * (k8s.io/apiserver pkg/apis/apiserver/validation/validation_encryption.go and
 * pkg/server/options/encryptionconfig/config.go); a key's secret is never shown (REDACTED).
 * KMS providers are refused: this server has no KMS plugin client.
 *
 * With --encryption-provider-config-automatic-reload the file is polled; a changed file that
 * loads replaces the configuration for the next request, one that does not is logged and counted
 * and the previous configuration stays.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PolledFile } from '../polled-file';
import { yaml } from '../lazy-packages';
import type { Logger } from 'winston';
import { Storage } from '../storage/interfaces';
import { TransformingStorage } from '../storage/transforming-storage';
import { AesCbcTransformer, AesGcmTransformer } from '../storage/value/aes';
import { SecretboxTransformer } from '../storage/value/secretbox';
import { IdentityTransformer, PrefixedTransformer, PrefixTransformers, TransformObserver, ValueTransformer } from '../storage/value/transformer';
import type { MetricsRegistry } from '../metrics/registry';

const GROUPS = ['apiserver.config.orch.io', 'apiserver.config.k8s.io'];
const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];
const PROVIDER_TYPES = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const;
type ProviderType = typeof PROVIDER_TYPES[number];

export class EncryptionConfigError extends Error {}

interface GroupResource { group: string; resource: string }

/** Kubernetes' schema.ParseGroupResource: the resource up to the first dot, the group after it. */
function parseGroupResource(text: string): GroupResource {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

const grKey = (gr: GroupResource) => `${gr.resource}\u0000${gr.group}`;
/** kube's grYAMLString: `*.` for every core resource, else GroupResource.String(). */
const grYaml = (gr: GroupResource) => (gr.group === '' && gr.resource === '*' ? '*.' : gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %v of a []int. */
const goInts = (xs: number[]) => `[${xs.join(' ')}]`;

/**
 * A bad provider as field.Error prints it (JSON), with every string but key names REDACTED: a
 * misspelt field may hold key material too.
 */
function shown(value: unknown): string {
  return JSON.stringify(value, (k, v) => (typeof v === 'string' && k !== 'name' ? 'REDACTED' : v));
}

/** Go's base64.StdEncoding.DecodeString: padded standard alphabet, nothing else (newlines aside). */
function decodeBase64(text: string): Buffer | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

interface KeySpec { name: string; secret: Buffer }
type ProviderSpec = { type: 'identity' } | { type: 'aesgcm' | 'aescbc' | 'secretbox'; keys: KeySpec[] };
interface ResourceSpec { resources: string[]; providers: ProviderSpec[] }

/** Validates a decoded EncryptionConfiguration; returns kube's field error lines. */
function validate(doc: Record<string, unknown>): { errors: string[]; specs: ResourceSpec[] } {
  const errors: string[] = [];
  const specs: ResourceSpec[] = [];
  const resources = doc.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    return { errors: ['resources: Required value: at least one resources is required'], specs };
  }
  resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const entry = isObject(conf) ? conf : {};
    const names = Array.isArray(entry.resources) ? entry.resources.map(String) : [];
    if (!names.length) errors.push(`${r}: Required value: at least one ${r} is required`);
    errors.push(...validateOverlap(names, r), ...validateNames(names, r));
    const providers = Array.isArray(entry.providers) ? entry.providers : [];
    if (!providers.length) errors.push(`${p}: Required value: at least one ${p} is required`);
    const spec: ResourceSpec = { resources: names, providers: [] };
    providers.forEach((prov, j) => {
      const path = `${p}[${j}]`;
      const obj = isObject(prov) ? prov : {};
      const found = PROVIDER_TYPES.filter((t) => obj[t] !== undefined && obj[t] !== null);
      if (found.length === 0) {
        errors.push(`${path}: Invalid value: ${shown(prov)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity`);
        return;
      }
      if (found.length > 1) {
        errors.push(`${path}: Invalid value: ${shown(prov)}: more than one provider specified in a single element, should split into different list elements`);
        return;
      }
      const type: ProviderType = found[0];
      if (type === 'kms') {
        errors.push(`${path}.kms: Forbidden: KMS providers are not supported by this server; use aesgcm, aescbc or secretbox`);
        return;
      }
      if (type === 'identity') {
        spec.providers.push({ type });
        return;
      }
      const keysPath = `${path}.${type}.keys`;
      const conf = isObject(obj[type]) ? obj[type] as Record<string, unknown> : {};
      const keys = Array.isArray(conf.keys) ? conf.keys : [];
      if (!keys.length) {
        errors.push(`${keysPath}: Required value: at least one keys is required`);
        return;
      }
      const sizes = type === 'secretbox' ? SECRETBOX_KEY_SIZES : AES_KEY_SIZES;
      const parsed: KeySpec[] = [];
      keys.forEach((key, k) => {
        const at = `${keysPath}[${k}]`;
        const o = isObject(key) ? key : {};
        const name = typeof o.name === 'string' ? o.name : '';
        const secret = typeof o.secret === 'string' ? o.secret : '';
        if (!name) errors.push(`${at}.name: Required value: name is a mandatory field for a key`);
        if (!secret) {
          errors.push(`${at}.secret: Required value: secret is a mandatory field for a key`);
          return;
        }
        const bytes = decodeBase64(secret);
        if (!bytes) {
          errors.push(`${at}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
          return;
        }
        if (!sizes.includes(bytes.length)) {
          errors.push(`${at}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${bytes.length}, expected one of ${goInts(sizes)}`);
          return;
        }
        parsed.push({ name, secret: bytes });
      });
      spec.providers.push({ type, keys: parsed });
    });
    specs.push(spec);
  });
  return { errors, specs };
}

function validateOverlap(resources: string[], path: string): string[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  for (let i = 0; i < grs.length; i++) {
    for (let j = 0; j < grs.length; j++) {
      if (i === j) continue;
      const [a, b] = [grs[i], grs[j]];
      if (a.group === b.group && a.resource === b.resource && !duplicate) { duplicate = true; continue; }
      if (overlap) continue;
      if (a.group === '*' && a.resource === '*') { overlap = true; continue; }
      if (a.group !== b.group) continue;
      if (a.resource === '*' || b.resource === '*') overlap = true;
    }
  }
  const out: string[] = [];
  if (duplicate) out.push(`${path}: Invalid value: ${JSON.stringify(resources)}: the same resource cannot be specified multiple times`);
  if (overlap) out.push(`${path}: Invalid value: ${JSON.stringify(resources)}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`);
  return out;
}

function validateNames(resources: string[], path: string): string[] {
  const out: string[] = [];
  resources.forEach((res, j) => {
    const at = `${path}[${j}]: Invalid value: ${JSON.stringify(res)}`;
    const gr = parseGroupResource(res);
    if (/[A-Z]/.test(res)) out.push(`${at}: resource name should not contain capital letters`);
    else if (res === '*') out.push(`${at}: use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`);
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(res)) out.push(`${at}: resources which do not have REST API/s cannot be encrypted`);
    else if (gr.group === 'events.k8s.io') out.push(`${at}: '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`);
    else if (gr.group === 'extensions') out.push(`${at}: 'extensions' group has been removed and cannot be used for encryption`);
    else if (gr.group === '*' && gr.resource !== '*') out.push(`${at}: encrypting the same resource across groups is not supported`);
  });
  return out;
}

const PREFIX: Record<'aesgcm' | 'aescbc' | 'secretbox', string> = {
  aesgcm: 'k8s:enc:aesgcm:v1:', aescbc: 'k8s:enc:aescbc:v1:', secretbox: 'k8s:enc:secretbox:v1:',
};
const NO_KEY: Record<'aesgcm' | 'aescbc' | 'secretbox', string> = {
  aesgcm: 'no matching key was found for the provided AES transformer',
  aescbc: 'no matching key was found for the provided AES transformer',
  secretbox: 'no matching key was found for the provided Secretbox transformer',
};

function providerTransformer(p: ProviderSpec): PrefixedTransformer {
  if (p.type === 'identity') return { prefix: Buffer.alloc(0), transformer: new IdentityTransformer() };
  const keys = p.keys.map((k): PrefixedTransformer => ({
    prefix: Buffer.from(`${k.name}:`),
    transformer: p.type === 'aesgcm' ? new AesGcmTransformer(k.secret) : p.type === 'aescbc' ? new AesCbcTransformer(k.secret) : new SecretboxTransformer(k.secret),
  }));
  return { prefix: Buffer.from(PREFIX[p.type]), transformer: new PrefixTransformers(keys, NO_KEY[p.type]) };
}

/** A loaded configuration: for each resource, its transformer. */
export class EncryptionState {
  private readonly memo = new Map<string, ValueTransformer>();
  private readonly fallback = new IdentityTransformer();

  constructor(
    private readonly rules: ReadonlyMap<string, PrefixedTransformer[]>,
    /** A digest of the file's bytes (tells reloads apart; not secret material). */
    readonly hash: string,
    private readonly observe?: (resource: string) => TransformObserver,
  ) {}

  /**
   * The transformer of a resource (`secrets`, `leases.coordination.orch.io`): its own rule, else
   * its group's `*.<group>`, else `*.*`, else identity (which refuses encrypted data, as kube's).
   */
  transformerFor(resource: string): ValueTransformer {
    let t = this.memo.get(resource);
    if (t) return t;
    const gr = parseGroupResource(resource);
    const list = this.rules.get(grKey(gr)) ?? this.rules.get(grKey({ group: gr.group, resource: '*' })) ?? this.rules.get(grKey({ group: '*', resource: '*' }));
    t = list ? new PrefixTransformers(list, 'no matching prefix found', this.observe?.(resource)) : this.fallback;
    this.memo.set(resource, t);
    return t;
  }

  /** Whether `resource` is stored by a rule (not the identity fallback). */
  covers(resource: string): boolean {
    return this.transformerFor(resource) !== this.fallback;
  }
}

/** Parses and validates the file's text; throws EncryptionConfigError worded as kube's. */
export function parseEncryptionConfig(data: Buffer, file: string, observe?: (resource: string) => TransformObserver): EncryptionState {
  if (data.length === 0) {
    throw new EncryptionConfigError(`error while parsing file: error while loading file: encryption provider configuration file ${JSON.stringify(file)} is empty`);
  }
  const decodeError = (reason: string) => new EncryptionConfigError(
    `error while parsing file: error decoding encryption provider configuration file ${JSON.stringify(file)}: ${reason}`);
  let doc: unknown;
  try {
    doc = yaml().parse(data.toString('utf8'));
  } catch (err) {
    throw decodeError(`neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw decodeError('not an object');
  const [group, version, extra] = String(doc.apiVersion ?? '').split('/');
  if (doc.kind !== 'EncryptionConfiguration' || !GROUPS.includes(group) || version !== 'v1' || extra !== undefined) {
    throw decodeError(`expected kind EncryptionConfiguration of apiserver.config.orch.io/v1 (or apiserver.config.k8s.io/v1), got ${JSON.stringify(doc.kind)} of ${JSON.stringify(doc.apiVersion)}`);
  }
  const { errors, specs } = validate(doc);
  if (errors.length) {
    const unique = [...new Set(errors)];
    throw new EncryptionConfigError(`error while parsing file: ${unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`}`);
  }
  const rules = new Map<string, PrefixedTransformer[]>();
  for (const spec of specs) {
    const transformers = spec.providers.map(providerTransformer);
    for (const name of spec.resources) {
      const gr = parseGroupResource(name);
      for (const mask of [{ group: gr.group, resource: '*' }, { group: '*', resource: '*' }]) {
        if (rules.has(grKey(mask))) {
          throw new EncryptionConfigError(`error while building transformers: resource ${JSON.stringify(grYaml(gr))} is masked by earlier rule ${JSON.stringify(grYaml(mask))}`);
        }
      }
      const list = rules.get(grKey(gr)) ?? [];
      list.push(...transformers);
      rules.set(grKey(gr), list);
    }
  }
  return new EncryptionState(rules, createHash('sha256').update(data).digest('hex'), observe);
}

/** The file's text, or the start-time error in Kubernetes' words. */
function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(`error while parsing file: error while loading file: error reading encryption provider configuration file ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function loadEncryptionConfig(file: string, observe?: (resource: string) => TransformObserver): EncryptionState {
  return parseEncryptionConfig(Buffer.from(readConfigText(file), 'utf8'), file, observe);
}

export interface EncryptionAtRestOptions {
  file: string;
  automaticReload: boolean;
  reloadIntervalMs: number;
  log: Pick<Logger, 'info' | 'error'>;
  metrics?: MetricsRegistry;
}

/**
 * The server's encryption at rest: the current configuration, the storage wrapper of each
 * resource, and (with automatic reload) the poll of the file.
 */
export class EncryptionAtRest {
  private state: EncryptionState;
  /** With automatic reload: the file polled (lib/polled-file.ts), each change applied or refused once. */
  private readonly poller: PolledFile;
  private readonly reloads?: { labels(status: string): { inc(): void } };
  private readonly observe?: (resource: string) => TransformObserver;

  constructor(private readonly opts: EncryptionAtRestOptions) {
    if (opts.metrics) {
      const ops = opts.metrics.counter({
        name: 'apiserver_storage_transformation_operations_total', labelNames: ['resource', 'transformation_type', 'transformer_prefix', 'status'] as const,
        help: 'Total number of transformations. Successful transformation will have a status \'OK\' and a varied status string when the transformation fails.',
      });
      this.observe = (resource) => (type, prefix, ok) => ops.labels(resource, type, prefix, ok ? 'OK' : 'Unknown').inc();
      this.reloads = opts.metrics.counter({
        name: 'apiserver_encryption_config_controller_automatic_reloads_total', labelNames: ['status'] as const,
        help: 'Total number of reload successes and failures of encryption configuration split by apiserver identity.',
      });
    }
    const initial = readConfigText(opts.file);
    this.state = parseEncryptionConfig(Buffer.from(initial, 'utf8'), opts.file, this.observe);
    this.poller = new PolledFile({
      file: opts.file, intervalMs: opts.reloadIntervalMs,
      apply: (data) => {
        this.state = parseEncryptionConfig(Buffer.from(data, 'utf8'), opts.file, this.observe);
        this.reloads?.labels('success').inc();
        opts.log.info('loaded a new encryption provider configuration', { file: opts.file, hash: this.state.hash.slice(0, 12) });
      },
      unreadable: (cause) => this.failed(`error reading encryption provider configuration file ${JSON.stringify(opts.file)}: ${cause}`),
      invalid: (err) => this.failed(err.message),
    }, initial);
    if (opts.automaticReload) this.poller.start();
  }

  get current(): EncryptionState {
    return this.state;
  }

  /** Re-reads the file: true when a changed configuration was loaded. A bad file keeps the old one. */
  reload(): boolean {
    return this.poller.check();
  }

  /** Logged and counted once per bad file; the messages never carry key material (secrets are REDACTED). */
  private failed(message: string): void {
    this.reloads?.labels('failure').inc();
    this.opts.log.error('failed to reload the encryption provider configuration; keeping the previous one', { file: this.opts.file, error: message });
  }

  /** The storage of one resource: values transformed by the resource's transformer of the moment. */
  storageFor(resource: string, inner: Storage): Storage {
    return new TransformingStorage(inner, () => this.state.transformerFor(resource));
  }

  stop(): void {
    this.poller.stop();
  }
}

/**
 * The server's encryption at rest from its flags; undefined without --encryption-provider-config.
 * A bad file throws (the start stops before anything is stored).
 */
export function encryptionAtRestFromFlags(
  config: { encryptionProviderConfig: string; encryptionProviderConfigAutomaticReload: boolean; encryptionProviderConfigReloadIntervalMs: number },
  metrics: MetricsRegistry, log: Pick<Logger, 'info' | 'error'>,
): EncryptionAtRest | undefined {
  if (!config.encryptionProviderConfig) {
    if (config.encryptionProviderConfigAutomaticReload) {
      throw new EncryptionConfigError('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    }
    return undefined;
  }
  return new EncryptionAtRest({
    file: config.encryptionProviderConfig, automaticReload: config.encryptionProviderConfigAutomaticReload,
    reloadIntervalMs: config.encryptionProviderConfigReloadIntervalMs, log, metrics,
  });
}
