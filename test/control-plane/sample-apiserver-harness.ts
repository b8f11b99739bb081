/**
 * The server with Kubernetes' real sample-apiserver (1.20.2, group wardle.example.com, built by
 * build.sh) aggregated behind it, set up as the sample's deployment artifacts set it up
 * (staging/src/k8s.io/sample-apiserver/artifacts/example): the server runs with the front-proxy
 * flags of a kube-apiserver (--requestheader-*, --proxy-client-*), sample-apiserver has an etcd of
 * its own, a serving certificate for `api.wardle.svc` and an identity of its own bound to
 * `system:auth-delegator`, to `extension-apiserver-authentication-reader` in kube-system and to
 * the artifacts' `aggregated-apiserver-clusterrole`, so that it delegates authentication
 * (TokenReview) and authorization (SubjectAccessReview) back to the server and reads the
 * `extension-apiserver-authentication` ConfigMap. The Service `wardle/api` is an ExternalName
 * service for 127.0.0.1 with sample-apiserver's port (nothing here routes cluster IPs), and
 * the APIServices v1alpha1 and v1beta1.wardle.example.com carry its serving CA as caBundle.
 * Used by the e2e test (sample-apiserver.test.ts) and the aggregation benchmark.
 */
import https from 'node:https';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { startServerProcess, ServerProcess } from '../helpers/server-process';
import { freeLoopbackPort } from '../helpers/free-port';
import { Kubectl, kubectlFor } from '../helpers/kubectl';
import { issueCert, Issued } from '../helpers/x509-certs';
import { Component, KUBE_BIN, startComponent } from './components';
import { ControlPlaneFiles, identityKubeconfig, makeControlPlaneFiles } from './identities';

export const SAMPLE_APISERVER_BIN = path.join(KUBE_BIN, 'sample-apiserver');
export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_NAMESPACE = 'wardle';
export const WARDLE_SERVICE = 'api';
/** The user sample-apiserver presents to the server (its kubeconfigs' client certificate). */
export const WARDLE_IDENTITY = 'system:wardle-apiserver';
/** The versions sample-apiserver 1.20 serves (v1beta1 has Flunder only) and the artifacts' priorities. */
export const WARDLE_VERSIONS = [{ version: 'v1alpha1', versionPriority: 15 }, { version: 'v1beta1', versionPriority: 10 }];
const GROUP_PRIORITY_MINIMUM = 1000;

export interface ApiAnswer { status: number; body: string; json?: any }

/** A backend registered as wardle/api: its port, serving CA, group and versions. */
export interface RegisteredBackend {
  port: number;
  caPem: string;
  group: string;
  versions: Array<{ version: string; versionPriority: number }>;
}

export interface SampleSetupOptions {
  /** More server flags. */
  serverArgs?: string[];
  /** Write the server's audit log (Metadata level, every request) to `<dir>/audit.log`. */
  audit?: boolean;
  /** Node flags of the server process. */
  serverNodeArgs?: string[];
}

export class SampleApiserverSetup {
  readonly dir: string;
  readonly logDir: string;
  files?: ControlPlaneFiles;
  etcd?: TestEtcd;
  sampleEtcd?: TestEtcd;
  server?: ServerProcess;
  sample?: Component;
  samplePort = 0;
  private sampleArgv: string[] = [];
  private backend?: RegisteredBackend;
  servingCa?: Issued;
  url = '';
  auditLog = '';
  kubectl!: Kubectl;
  private admin?: { ca: Buffer; cert: Buffer; key: Buffer };
  private agent?: https.Agent;

  constructor() {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'orch-wardle-'));
    this.logDir = path.join(this.dir, 'logs');
    mkdirSync(this.logDir);
  }

  static binaryPresent(): boolean {
    return existsSync(SAMPLE_APISERVER_BIN);
  }

  /** etcd and the server with the front-proxy flags of a kube-apiserver. */
  async startServer(opts: SampleSetupOptions = {}): Promise<void> {
    const f = this.files = await makeControlPlaneFiles(this.dir);
    this.etcd = await startTestEtcd();
    const audit: string[] = [];
    if (opts.audit) {
      const policy = path.join(this.dir, 'audit-policy.yaml');
      writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
      this.auditLog = path.join(this.dir, 'audit.log');
      audit.push(`--audit-policy-file=${policy}`, `--audit-log-path=${this.auditLog}`);
    }
    this.server = await startServerProcess([
      `--etcd-servers=${this.etcd.endpoint}`, '--secure-port=0', '--bind-address=127.0.0.1',
      `--tls-cert-file=${f.pki.serverCertFile}`, `--tls-private-key-file=${f.pki.serverKeyFile}`,
      `--client-ca-file=${f.pki.caCertFile}`, '--authorization-mode=Node,RBAC',
      `--service-account-key-file=${f.saPub}`, `--service-account-signing-key-file=${f.saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--requestheader-client-ca-file=${f.frontProxyCa}`, '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${f.proxyClientCert}`, `--proxy-client-key-file=${f.proxyClientKey}`,
      `--data-dir=${f.dataDir}`, '--flavor=kubernetes', ...audit, ...(opts.serverArgs ?? []),
    ], { timeoutMs: 60_000, nodeArgs: opts.serverNodeArgs });
    const serverLog = createWriteStream(path.join(this.logDir, 'server.log'));
    this.server.process.stderr!.on('data', (chunk: Buffer | string) => serverLog.write(chunk));
    this.server.process.once('exit', () => serverLog.end());
    const admin = parseYaml(readFileSync(this.server.kubeconfigPath, 'utf8')) as {
      clusters: Array<{ cluster: Record<string, string> }>; users: Array<{ user: Record<string, string> }>;
    };
    this.url = admin.clusters[0].cluster.server;
    const b64 = (s: string) => Buffer.from(s, 'base64');
    this.admin = { ca: b64(admin.clusters[0].cluster['certificate-authority-data']), cert: b64(admin.users[0].user['client-certificate-data']), key: b64(admin.users[0].user['client-key-data']) };
    this.agent = new https.Agent({ keepAlive: true, ...this.admin });
    this.kubectl = kubectlFor(this.server.kubeconfigPath, path.join(this.dir, 'kube-cache'), 60_000);
  }

  /** The server's CA and the admin's client certificate (system:masters), from its kubeconfig. */
  adminTls(): { ca: Buffer; cert: Buffer; key: Buffer } {
    return this.admin!;
  }

  /** One request to the server as its admin (system:masters). */
  api(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = https.request(`${this.url}${urlPath}`, {
        method, agent: this.agent, timeout: 30_000,
        headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try { json = JSON.parse(text); } catch { json = undefined; }
          resolve({ status: res.statusCode ?? 0, body: text, json });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** `api` that must answer 2xx (409 too when `exists` is allowed). */
  async must(method: string, urlPath: string, body?: unknown, allowConflict = false): Promise<any> {
    const r = await this.api(method, urlPath, body);
    if ((r.status < 200 || r.status >= 300) && !(allowConflict && r.status === 409)) throw new Error(`${method} ${urlPath}: ${r.status} ${r.body.slice(0, 400)}`);
    return r.json;
  }

  /**
   * sample-apiserver's identity and RBAC as its artifacts bind them (auth-delegator.yaml,
   * auth-reader.yaml, rbac.yaml, rbac-bind.yaml), the namespace `wardle`, then its etcd and the
   * process; resolves once its /healthz answers 200.
   */
  async startSample(): Promise<void> {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const subject = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: WARDLE_IDENTITY }];
    const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
    await this.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: WARDLE_NAMESPACE } }, true);
    await this.must('POST', `${rbac}/clusterrolebindings`, { metadata: { name: 'wardle:system:auth-delegator' }, roleRef: ref('ClusterRole', 'system:auth-delegator'), subjects: subject }, true);
    await this.must('POST', `${rbac}/namespaces/kube-system/rolebindings`, { metadata: { name: 'wardle-auth-reader', namespace: 'kube-system' }, roleRef: ref('Role', 'extension-apiserver-authentication-reader'), subjects: subject }, true);
    await this.must('POST', `${rbac}/clusterroles`, {
      metadata: { name: 'aggregated-apiserver-clusterrole' },
      rules: [
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'watch', 'list'] },
        { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'], verbs: ['get', 'watch', 'list'] },
      ],
    }, true);
    await this.must('POST', `${rbac}/clusterrolebindings`, { metadata: { name: 'sample-apiserver-clusterrolebinding' }, roleRef: ref('ClusterRole', 'aggregated-apiserver-clusterrole'), subjects: subject }, true);

    const kubeconfig = await identityKubeconfig(this.files!, path.join(this.dir, 'wardle.kubeconfig'), this.url, WARDLE_IDENTITY);
    this.servingCa = issueCert({ commonName: 'wardle-serving-ca', ca: true });
    const serving = issueCert({ commonName: `${WARDLE_SERVICE}.${WARDLE_NAMESPACE}.svc`, extKeyUsage: ['serverAuth'],
      altNames: [`${WARDLE_SERVICE}.${WARDLE_NAMESPACE}.svc`, `${WARDLE_SERVICE}.${WARDLE_NAMESPACE}.svc.cluster.local`, 'localhost', '127.0.0.1'] }, this.servingCa);
    const certFile = path.join(this.dir, 'wardle-serving.crt');
    const keyFile = path.join(this.dir, 'wardle-serving.key');
    writeFileSync(certFile, serving.certPem);
    writeFileSync(keyFile, serving.keyPem, { mode: 0o600 });
    this.sampleEtcd = await startTestEtcd();
    this.samplePort = await freeLoopbackPort();
    const certDir = path.join(this.dir, 'wardle-certs');
    mkdirSync(certDir);
    this.sampleArgv = [
      SAMPLE_APISERVER_BIN, `--etcd-servers=${this.sampleEtcd.endpoint}`,
      `--secure-port=${this.samplePort}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`,
      `--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`,
      `--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
      // 1.20's priority and fairness watches flowcontrol.apiserver.k8s.io/v1beta1, which a 1.32
      // server (kube-apiserver's or this one) no longer serves.
      '--feature-gates=APIPriorityAndFairness=false',
      // A refusal is not kept for the default 10 s: a user refused and then given a Role is asked again.
      '--authorization-webhook-cache-unauthorized-ttl=1s',
      '--v=2',
    ];
    await this.restartSample();
  }

  /** Starts sample-apiserver (again, after a stop: same port, etcd and files); resolves once /healthz answers 200. */
  async restartSample(): Promise<void> {
    this.sample = startComponent('sample-apiserver', this.sampleArgv, this.logDir);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.sample.process.exitCode !== null) throw new Error(`sample-apiserver exited (${this.sample.process.exitCode}):\n${this.sample.tail(40)}`);
      if (await this.sampleHealthz() === 200) return;
      if (Date.now() > deadline) throw new Error(`sample-apiserver not healthy within 60 s:\n${this.sample.tail(40)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** sample-apiserver's own /healthz (an always-allowed path), verified with its serving CA. */
  sampleHealthz(): Promise<number> {
    return new Promise((resolve) => {
      const req = https.get({ host: '127.0.0.1', port: this.samplePort, path: '/healthz', ca: this.servingCa!.certPem, servername: `${WARDLE_SERVICE}.${WARDLE_NAMESPACE}.svc`, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
    });
  }

  /**
   * The Service wardle/api (ExternalName 127.0.0.1 and the backend's port) and one APIService per
   * version; by default for sample-apiserver, else for `backend` (e.g. the test extension server).
   */
  async register(backend?: RegisteredBackend): Promise<void> {
    const b = this.backend = backend ?? { port: this.samplePort, caPem: this.servingCa!.certPem, group: WARDLE_GROUP, versions: WARDLE_VERSIONS };
    await this.must('POST', `/api/v1/namespaces/${WARDLE_NAMESPACE}/services`, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: WARDLE_SERVICE, namespace: WARDLE_NAMESPACE },
      spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ name: 'https', port: b.port, protocol: 'TCP' }] },
    }, true);
    for (const v of b.versions) {
      await this.must('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${v.version}.${b.group}` },
        spec: {
          group: b.group, version: v.version, groupPriorityMinimum: GROUP_PRIORITY_MINIMUM, versionPriority: v.versionPriority,
          service: { name: WARDLE_SERVICE, namespace: WARDLE_NAMESPACE, port: b.port },
          caBundle: Buffer.from(b.caPem).toString('base64'),
        },
      }, true);
    }
  }

  /** The Available condition of an APIService, if it has one. */
  async availability(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
    const r = await this.api('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    const conds = (r.json?.status?.conditions ?? []) as Array<{ type: string; status: string; reason?: string; message?: string }>;
    return conds.find((c) => c.type === 'Available') ?? {};
  }

  /** Waits until every APIService of the registered backend is Available. */
  async waitAvailable(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const b = this.backend!;
      const conds = await Promise.all(b.versions.map((v) => this.availability(`${v.version}.${b.group}`)));
      if (conds.every((c) => c.status === 'True')) return;
      if (Date.now() > deadline) throw new Error(`${b.group} APIServices not Available within ${timeoutMs / 1000} s: ${JSON.stringify(conds)}\n${this.tails()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** Writes a kubeconfig for `user` (client certificate of the cluster CA) and returns kubectl with it. */
  async kubectlAs(user: string, groups: string[] = []): Promise<Kubectl> {
    const file = await identityKubeconfig(this.files!, path.join(this.dir, `${user.replace(/[^a-z0-9-]/gi, '_')}.kubeconfig`), this.url, user, groups);
    return kubectlFor(file, path.join(this.dir, `kube-cache-${user.replace(/[^a-z0-9-]/gi, '_')}`), 60_000);
  }

  /** The audit log's events (with `audit`). */
  auditEvents(): Array<Record<string, any>> {
    if (!this.auditLog || !existsSync(this.auditLog)) return [];
    return readFileSync(this.auditLog, 'utf8').split('\n').filter(Boolean).flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
  }

  tails(lines = 20): string {
    const parts: string[] = [];
    if (this.sample) parts.push(`--- sample-apiserver (${this.sample.logFile}):\n${this.sample.tail(lines)}`);
    if (this.server) parts.push(`--- server stderr:\n${this.server.stderrTail()}`);
    return parts.join('\n');
  }

  async stop(keep: boolean): Promise<void> {
    this.agent?.destroy();
    await this.sample?.stop();
    await this.server?.stop();
    await this.sampleEtcd?.stop();
    await this.etcd?.stop();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
