/**
 * Credentials for admission webhook calls: the plugin configuration WebhookAdmissionConfiguration
 * (`apiserver.config.orch.io/v1`, Kubernetes' `apiserver.config.k8s.io/v1`) names a kubeconfig
 * (`kubeConfigFile`, an absolute path) whose `users` are matched by name against the webhook's
 * address as kube-apiserver does: `host:port` exactly, then `*.<suffix>` wildcards, then (port 443
 * only) the host alone and its wildcards, then `*`, then the current context's user.
 * A service is addressed as `<name>.<namespace>.svc:<port>`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { yaml } from '../../lazy-packages';
import { readUserCredentials } from '../../authn/kubeconfig-client';

/** What one kubeconfig user contributes to a call (files read, data decoded). */
export interface WebhookCredentials {
  certPem?: string;
  keyPem?: string;
  token?: string;
  username?: string;
  password?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const GROUPS = ['apiserver.config.orch.io', 'apiserver.config.k8s.io'];

/** Finds the credentials for a webhook address. */
export class CredentialResolver {
  constructor(private readonly users: ReadonlyMap<string, WebhookCredentials> = new Map(), private readonly current?: WebhookCredentials) {}

  /** `hostPort` is `host:port` (the port always present). */
  forHostPort(hostPort: string): WebhookCredentials | undefined {
    const found = this.lookup(hostPort);
    if (found) return found;
    const colon = hostPort.lastIndexOf(':');
    if (colon > 0 && hostPort.slice(colon + 1) === '443') {
      const host = hostPort.slice(0, colon);
      const bare = this.lookup(host);
      if (bare) return bare;
    }
    return this.users.get('*') ?? this.current;
  }

  forService(name: string, namespace: string, port: number): WebhookCredentials | undefined {
    return this.forHostPort(`${name}.${namespace}.svc:${port}`);
  }

  private lookup(target: string): WebhookCredentials | undefined {
    const exact = this.users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const wildcard = this.users.get(`*.${steps.slice(i).join('.')}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  }
}

function text(o: Obj, field: string): string {
  const v = o[field];
  return typeof v === 'string' ? v : '';
}

function credentialsOf(user: Obj, where: string, dir: string): WebhookCredentials {
  if (user['auth-provider'] !== undefined) throw new Error(`${where}: auth provider not supported`);
  if (user.exec !== undefined) throw new Error(`${where}: exec credentials are not supported`);
  const { cert, key, credential } = readUserCredentials(user, where, dir);
  const c: WebhookCredentials = {};
  if (cert && key) [c.certPem, c.keyPem] = [cert, key];
  if (credential && 'token' in credential) c.token = credential.token;
  else if (credential) [c.username, c.password] = [credential.username, credential.password];
  return c;
}

/** The users of a kubeconfig file (errors name the file, never a secret). */
export function readCredentialFile(file: string): CredentialResolver {
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`kubeConfigFile ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new Error(`kubeConfigFile ${file}: not a kubeconfig`);
  const dir = path.dirname(file);
  const users = new Map<string, WebhookCredentials>();
  for (const entry of Array.isArray(doc.users) ? doc.users : []) {
    if (!isObj(entry) || typeof entry.name !== 'string') continue;
    users.set(entry.name, credentialsOf(isObj(entry.user) ? entry.user : {}, `kubeConfigFile ${file}: user "${entry.name}"`, dir));
  }
  let current: WebhookCredentials | undefined;
  const currentContext = text(doc, 'current-context');
  if (currentContext && Array.isArray(doc.contexts)) {
    const ctx = doc.contexts.find((c: unknown) => isObj(c) && c.name === currentContext) as Obj | undefined;
    const userName = isObj(ctx?.context) ? text(ctx!.context as Obj, 'user') : '';
    if (userName) current = users.get(userName);
  }
  return new CredentialResolver(users, current);
}

/**
 * The resolver of a plugin's configuration (WebhookAdmissionConfiguration, or nothing: no
 * credentials). Throws a one-line reason for a configuration that cannot be used.
 */
export function credentialsFromPluginConfig(config: unknown): CredentialResolver {
  if (config === undefined || config === null) return new CredentialResolver();
  if (!isObj(config)) throw new Error('the configuration must be an object');
  const [group, version] = text(config, 'apiVersion').split('/');
  const kind = text(config, 'kind');
  if (!GROUPS.includes(group) || !['v1', 'v1alpha1'].includes(version) || !['WebhookAdmissionConfiguration', 'WebhookAdmission'].includes(kind)) {
    throw new Error(`expected kind WebhookAdmissionConfiguration of apiserver.config.orch.io/v1, got ${JSON.stringify(kind)} of ${JSON.stringify(text(config, 'apiVersion'))}`);
  }
  const file = text(config, 'kubeConfigFile');
  if (!file) return new CredentialResolver();
  if (!path.isAbsolute(file)) throw new Error(`kubeConfigFile: Invalid value: ${JSON.stringify(file)}: must be an absolute file path`);
  return readCredentialFile(file);
}
