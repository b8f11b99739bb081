/**
 * A kubeconfig-format file read into an HTTPS client for a webhook (kube-apiserver's webhook
 * config files: --authentication-token-webhook-config-file and later the authorization webhook).
 * Read as client-go's clientcmd reads it for a webhook:
 * - the cluster and user are the current-context's; without `current-context` a file holding
 *   one context uses it, and a file without contexts holding one cluster (and at most one user)
 *   uses those (client-go would find no server there; one of each can mean nothing else);
 * - `certificate-authority`, `client-certificate`, `client-key` and `tokenFile` are relative to
 *   the file's directory; the `*-data` fields are base64; a file and its data together, a CA
 *   with `insecure-skip-tls-verify`, or two credential kinds are errors, as in client-go;
 * - the server must be `https` (a token or credential never travels in clear); requests go to
 *   its URL exactly, path included.
 * Credentials are read at start (a bad file stops the start); a `tokenFile` is re-read at most
 * once a minute, keeping the last good token when it cannot be read, as client-go does.
 */
import { readFileSync, promises as fsp } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { yaml } from '../lazy-packages';
import { CertificatePool } from './cert-pool';

/** What a webhook client needs of a kubeconfig, with files read and data decoded. */
export interface KubeconfigClientConfig {
  server: URL;
  /** PEM bundle of trusted CAs; absent: the system roots. */
  ca?: string;
  /** PEM client certificate and key (both or neither). */
  cert?: string;
  key?: string;
  insecureSkipTlsVerify: boolean;
  /** `tls-server-name`: the name the server certificate must carry instead of the URL's host. */
  servername?: string;
  credential?: { token: string } | { tokenFile: string; token: string } | { username: string; password: string };
}

/** The answer of one POST: status, headers (lower-case names) and the body's bytes. */
export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const TOKEN_FILE_REFRESH_MS = 60_000;
/** Webhook replies are small; a larger one is a broken webhook, not something to buffer. */
const MAX_REPLY_BYTES = 3 * 1024 * 1024;

/** The named entries of one list (`clusters`, `users`, `contexts`); names must be unique. */
function namedEntries(doc: Obj, list: string, field: string): Map<string, Obj> {
  const raw = doc[list];
  const out = new Map<string, Obj>();
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) throw new Error(`${list} must be a list`);
  for (const [i, item] of raw.entries()) {
    if (!isObj(item) || typeof item.name !== 'string') throw new Error(`${list}[${i}] must have a name`);
    if (out.has(item.name)) throw new Error(`duplicate name "${item.name}" in ${list}`);
    const inner = item[field] ?? {};
    if (!isObj(inner)) throw new Error(`${list}[${i}].${field} must be an object`);
    out.set(item.name, inner);
  }
  return out;
}

function text(o: Obj, field: string, where: string): string {
  const v = o[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new Error(`${where}: ${field} must be a string`);
  return v;
}

/** Go's []byte in JSON: standard base64 (line breaks ignored). */
function base64Field(o: Obj, field: string, where: string): string {
  const v = text(o, field, where).replace(/[\r\n]/g, '');
  if (!v) return '';
  if (v.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) throw new Error(`${where}: ${field} is not base64`);
  return Buffer.from(v, 'base64').toString('utf8');
}

/** A file's text, the path taken relative to the kubeconfig's directory. */
function fileField(o: Obj, field: string, where: string, dir: string): { path: string; text: string } | undefined {
  const p = text(o, field, where);
  if (!p) return undefined;
  const resolved = path.resolve(dir, p);
  try {
    return { path: resolved, text: readFileSync(resolved, 'utf8') };
  } catch (err) {
    throw new Error(`${where}: ${field} ${resolved}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Either the file or the data form of one value (client-go refuses both). */
function fileOrData(o: Obj, fileName: string, dataName: string, where: string, dir: string): string | undefined {
  if (text(o, fileName, where) && text(o, dataName, where)) throw new Error(`${where}: ${dataName} and ${fileName} are both specified`);
  return fileField(o, fileName, where, dir)?.text ?? (base64Field(o, dataName, where) || undefined);
}

/** The cluster and user the file designates (see the module comment). */
function chooseEntries(doc: Obj): { clusterName: string; cluster: Obj; userName: string; user: Obj } {
  const clusters = namedEntries(doc, 'clusters', 'cluster');
  const users = namedEntries(doc, 'users', 'user');
  const contexts = namedEntries(doc, 'contexts', 'context');
  const current = text(doc, 'current-context', 'file');
  let context: Obj;
  let contextName: string;
  if (current) {
    const c = contexts.get(current);
    if (!c) throw new Error(`current-context "${current}" is not in contexts`);
    [context, contextName] = [c, current];
  } else if (contexts.size === 1) {
    [[contextName, context]] = [...contexts];
  } else if (contexts.size === 0 && clusters.size === 1 && users.size <= 1) {
    const [[clusterName, cluster]] = [...clusters];
    const [userName, user] = [...users][0] ?? ['', {}];
    return { clusterName, cluster, userName, user };
  } else {
    throw new Error('no current-context: the file must set one, or hold one context (or one cluster and user without contexts)');
  }
  const where = `context "${contextName}"`;
  const clusterName = text(context, 'cluster', where);
  const cluster = clusters.get(clusterName);
  if (!cluster) throw new Error(`${where}: cluster "${clusterName}" is not in clusters`);
  const userName = text(context, 'user', where);
  const user = userName ? users.get(userName) : {};
  if (!user) throw new Error(`${where}: user "${userName}" is not in users`);
  return { clusterName, cluster, userName, user };
}

/**
 * The client config of a kubeconfig's text; `file` is where it was read (relative paths in it
 * are relative to its directory). Throws an Error saying what is wrong, without secret values.
 */
export function parseKubeconfig(content: string, file: string): KubeconfigClientConfig {
  let doc: unknown;
  try {
    doc = yaml().parse(content);
  } catch (err) {
    throw new Error(`not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new Error('not a kubeconfig (no top-level object)');
  const dir = path.dirname(path.resolve(file));
  const { clusterName, cluster, userName, user } = chooseEntries(doc);
  const cw = `cluster "${clusterName}"`;
  const uw = `user "${userName}"`;

  const serverText = text(cluster, 'server', cw);
  if (!serverText) throw new Error(`${cw}: no server`);
  let server: URL;
  try {
    server = new URL(serverText);
  } catch {
    throw new Error(`${cw}: server ${JSON.stringify(serverText)} is not a URL`);
  }
  if (server.protocol !== 'https:') throw new Error(`${cw}: server must be an https URL`);
  if (server.username || server.password) throw new Error(`${cw}: server URL must not hold credentials (put them under users)`);
  for (const unsupported of ['proxy-url']) {
    if (cluster[unsupported] !== undefined) throw new Error(`${cw}: ${unsupported} is not supported`);
  }
  const ca = fileOrData(cluster, 'certificate-authority', 'certificate-authority-data', cw, dir);
  const insecure = cluster['insecure-skip-tls-verify'] ?? false;
  if (typeof insecure !== 'boolean') throw new Error(`${cw}: insecure-skip-tls-verify must be true or false`);
  if (ca && insecure) throw new Error(`${cw}: a certificate authority and insecure-skip-tls-verify cannot both be set`);
  const config: KubeconfigClientConfig = { server, insecureSkipTlsVerify: insecure };
  if (ca) config.ca = CertificatePool.fromPem(ca, `${cw}: certificate authority`).pem;
  const servername = text(cluster, 'tls-server-name', cw);
  if (servername) config.servername = servername;

  for (const unsupported of ['exec', 'auth-provider', 'as', 'as-groups', 'as-uid', 'as-user-extra']) {
    if (user[unsupported] !== undefined) throw new Error(`${uw}: ${unsupported} is not supported for webhooks`);
  }
  const { cert, key, credential } = readUserCredentials(user, uw, dir);
  if (cert && key) [config.cert, config.key] = [cert, key];
  if (credential) config.credential = credential;
  return config;
}

/**
 * A kubeconfig user's client certificate pair (files or data, checked to match) and token or
 * basic credentials; `dir` resolves relative file names. Errors name `where`, never a secret.
 */
export function readUserCredentials(user: Obj, where: string, dir: string):
  { cert?: string; key?: string; credential?: KubeconfigClientConfig['credential'] } {
  const cert = fileOrData(user, 'client-certificate', 'client-certificate-data', where, dir);
  const key = fileOrData(user, 'client-key', 'client-key-data', where, dir);
  if (cert && !key) throw new Error(`${where}: client-key-data or client-key must be specified with a client certificate`);
  if (key && !cert) throw new Error(`${where}: client-certificate-data or client-certificate must be specified with a client key`);
  if (cert && key) {
    try {
      createSecureContext({ cert, key });
    } catch (err) {
      throw new Error(`${where}: client certificate and key do not make a pair: ${(err as Error).message}`);
    }
  }
  return { cert, key, credential: credentialOf(user, where, dir) };
}

function credentialOf(user: Obj, where: string, dir: string): KubeconfigClientConfig['credential'] {
  const token = text(user, 'token', where);
  const username = text(user, 'username', where);
  const password = text(user, 'password', where);
  if (token && (username || password)) throw new Error(`${where}: more than one authentication method (token, basicAuth); only one is allowed`);
  const file = fileField(user, 'tokenFile', where, dir);
  if (file) {
    const fromFile = file.text.trim();
    if (!fromFile) throw new Error(`${where}: tokenFile ${file.path} is empty`);
    return { tokenFile: file.path, token: fromFile };
  }
  if (token) return { token };
  if (username || password) return { username, password };
  return undefined;
}

/** Reads `file`; errors name the flag and the file on one line. */
export function readKubeconfig(file: string, flag: string): KubeconfigClientConfig {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parseKubeconfig(content, file);
  } catch (err) {
    throw new Error(`${flag} ${file}: ${(err as Error).message}`);
  }
}

/** POSTs JSON to the kubeconfig's server over one keep-alive connection pool. */
export class KubeconfigClient {
  private readonly agent: https.Agent;
  private token?: string;
  private tokenReadAt = Date.now();
  private refreshing?: Promise<void>;

  constructor(readonly config: KubeconfigClientConfig) {
    this.agent = new https.Agent({
      keepAlive: true,
      ca: config.ca, cert: config.cert, key: config.key,
      rejectUnauthorized: !config.insecureSkipTlsVerify,
      servername: config.servername,
    });
    if (config.credential && 'token' in config.credential) this.token = config.credential.token;
  }

  /** The server URL (for messages: it holds no credentials). */
  get url(): string {
    return this.config.server.href;
  }

  /**
   * POSTs `body` (JSON) and resolves with the reply; rejects on network and TLS errors (the
   * error's `code` kept: ECONNRESET and the like) and when no full reply came within `timeoutMs`.
   */
  async post(body: Buffer, timeoutMs: number): Promise<HttpReply> {
    const headers: Record<string, string> = {
      'content-type': 'application/json', accept: 'application/json', 'content-length': String(body.length),
    };
    const authorization = await this.authorization();
    if (authorization) headers.authorization = authorization;
    return new Promise<HttpReply>((resolve, reject) => {
      const req = https.request(this.config.server, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_REPLY_BYTES) req.destroy(new Error(`reply larger than ${MAX_REPLY_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }); });
        res.on('error', (err) => { clearTimeout(timer); reject(err); });
      });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no reply within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
      req.on('error', (err) => { clearTimeout(timer); reject(err); });
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private async authorization(): Promise<string | undefined> {
    const c = this.config.credential;
    if (!c) return undefined;
    if ('username' in c) return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
    if ('tokenFile' in c && Date.now() - this.tokenReadAt > TOKEN_FILE_REFRESH_MS) {
      this.refreshing ??= this.rereadToken(c.tokenFile).finally(() => { this.refreshing = undefined; });
      await this.refreshing;
    }
    return `Bearer ${this.token}`;
  }

  private async rereadToken(file: string): Promise<void> {
    try {
      const t = (await fsp.readFile(file, 'utf8')).trim();
      if (t) this.token = t;
    } catch {
      // keep the last good token; the webhook will say if it no longer works
    }
    this.tokenReadAt = Date.now();
  }
}
