/**
 * The two sides of kubeadm 1.20's join path, for tests: what `kubeadm init` creates for joining
 * nodes (the RBAC objects and the token; the server does not make them, as kube-apiserver does
 * not), and what `kubeadm join` does to discover the cluster with a bootstrap token
 * (cmd/kubeadm/app/discovery/token): read `kube-public/cluster-info` anonymously without trusting
 * the server, check the `jws-kubeconfig-<token-id>` signature of its kubeconfig, pin the CA in it
 * by the SHA-256 of its public key, then read it again trusting that CA and compare.
 */
import { createHash, createHmac, X509Certificate } from 'node:crypto';
import https from 'node:https';
import { parse as parseYaml } from 'yaml';

/** kubeadm's group for the tokens it makes for joining nodes (auth-extra-groups). */
export const NODE_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';

type Obj = Record<string, unknown>;

const RBAC = 'rbac.authorization.k8s.io';
const group = (name: string) => ({ apiGroup: RBAC, kind: 'Group', name });
const clusterRoleBinding = (name: string, role: string, subject: string): Obj => ({
  apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects: [group(subject)],
});
/** A Role that may get one ConfigMap, and its RoleBinding of the same name to `subjects`. */
const configMapReader = (name: string, namespace: string, configMap: string, subjects: Obj[]): Obj[] => [
  { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [configMap] }] },
  { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name, namespace }, roleRef: { apiGroup: RBAC, kind: 'Role', name }, subjects },
];

/**
 * What kubeadm init (1.20) creates for joining nodes, in creation order: its bootstrap-token
 * phase's RBAC (anonymous may get cluster-info; node tokens may create CSRs, have their node
 * client CSRs auto-approved and get Nodes; nodes have their renewals auto-approved), and the
 * configuration `kubeadm join` reads with the token (kubeadm-config, kubelet-config-1.20) with the
 * Roles that let it. Create them as an admin at collectionPath(object).
 */
export function kubeadmInitObjects(): Obj[] {
  const nodeReaders = [group(NODE_TOKEN_GROUP), group('system:nodes')];
  return [
    ...configMapReader('kubeadm:bootstrap-signer-clusterinfo', 'kube-public', 'cluster-info', [{ apiGroup: RBAC, kind: 'User', name: 'system:anonymous' }]),
    clusterRoleBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', NODE_TOKEN_GROUP),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kubeadm:get-nodes' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    },
    clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', NODE_TOKEN_GROUP),
    clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', NODE_TOKEN_GROUP),
    clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
    ...configMapReader('kubeadm:nodes-kubeadm-config', 'kube-system', 'kubeadm-config', nodeReaders),
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' },
      data: {
        ClusterConfiguration: [
          'apiVersion: kubeadm.k8s.io/v1beta2', 'kind: ClusterConfiguration', 'clusterName: kubernetes', 'kubernetesVersion: v1.20.2',
          'certificatesDir: /etc/kubernetes/pki', 'networking:', '  dnsDomain: cluster.local', '  serviceSubnet: 10.96.0.0/12', '',
        ].join('\n'),
        ClusterStatus: 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\napiEndpoints: {}\n',
      },
    },
    ...configMapReader('kubeadm:kubelet-config-1.20', 'kube-system', 'kubelet-config-1.20', nodeReaders),
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubelet-config-1.20', namespace: 'kube-system' },
      data: {
        kubelet: [
          'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'rotateCertificates: true', 'cgroupDriver: cgroupfs',
          'clusterDNS:', '- 10.96.0.10', 'clusterDomain: cluster.local', '',
        ].join('\n'),
      },
    },
  ];
}

/** Where an admin creates `o` (a core or RBAC object, namespaced or not). */
export function collectionPath(o: Obj): string {
  const ns = (o.metadata as { namespace?: string }).namespace;
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${String(o.apiVersion)}`;
  return `${base}/${ns ? `namespaces/${ns}/` : ''}${String(o.kind).toLowerCase()}s`;
}

/** The bootstrap token Secret `kubeadm token create` makes (kube-system, both usages, kubeadm's group). */
export function kubeadmTokenSecret(id: string, secret: string, expiration?: string): Obj {
  return {
    apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    stringData: {
      'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true',
      'auth-extra-groups': NODE_TOKEN_GROUP, ...(expiration ? { expiration } : {}),
    },
  };
}

/** `sha256:<hex>` of the certificate's SubjectPublicKeyInfo: kubeadm's --discovery-token-ca-cert-hash. */
export function caCertHash(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/**
 * kubeadm's check of a detached JWS (DetachedTokenIsValid): the signature kubeadm would compute
 * (go-jose HS256, protected header {"alg":"HS256","kid":<token-id>}, keyed with the token secret)
 * must equal the published one, character for character.
 */
export function detachedJwsValidForKubeadm(detached: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: tokenId })).toString('base64url');
  const payload = Buffer.from(content, 'utf8').toString('base64url');
  const signature = createHmac('sha256', Buffer.from(tokenSecret)).update(`${header}.${payload}`).digest('base64url');
  return detached === `${header}..${signature}`;
}

interface Answer { status: number; body: { data?: Record<string, string>; message?: string } }

/** GET of kube-public/cluster-info with no credentials; `ca` undefined trusts any server certificate. */
export function getClusterInfoAnonymously(serverUrl: string, ca?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${serverUrl}/api/v1/namespaces/kube-public/configmaps/cluster-info`, {
      headers: { accept: 'application/json' }, agent: false, ...(ca ? { ca } : { rejectUnauthorized: false }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }); } catch (err) { reject(err); }
      });
    });
    req.on('error', reject);
  });
}

/** What token discovery trusts at the end: the cluster's URL and CA from cluster-info. */
export interface DiscoveredCluster { server: string; caPem: string; kubeconfig: string }

/**
 * Token discovery as kubeadm join does it, in one pass (kubeadm retries until a timeout while the
 * signature is missing; callers poll instead). Throws with kubeadm's message at the step that fails.
 */
export async function discoverWithToken(serverUrl: string, token: string, caCertHashes: string[]): Promise<DiscoveredCluster> {
  const [id, secret] = token.split('.');
  const insecure = await getClusterInfoAnonymously(serverUrl);
  if (insecure.status !== 200) throw new Error(`cluster-info: ${insecure.status} ${insecure.body.message ?? ''}`);
  const data = insecure.body.data ?? {};
  const kubeconfig = data.kubeconfig;
  if (!kubeconfig) throw new Error('there is no kubeconfig key in the cluster-info ConfigMap');
  const jws = data[`jws-kubeconfig-${id}`];
  if (!jws) throw new Error(`token id "${id}" is invalid for this cluster or it has expired`);
  if (!detachedJwsValidForKubeadm(jws, kubeconfig, id, secret)) {
    throw new Error('failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
  }
  const config = parseYaml(kubeconfig) as { clusters?: Array<{ cluster: { server: string; 'certificate-authority-data': string } }> };
  if (config.clusters?.length !== 1) throw new Error(`expected the kubeconfig file in the cluster-info ConfigMap to have a single cluster, but it had ${config.clusters?.length ?? 0}`);
  const { server, 'certificate-authority-data': caData } = config.clusters[0].cluster;
  const caPem = Buffer.from(caData, 'base64').toString('utf8');
  if (caCertHashes.length && !caCertHashes.includes(caCertHash(caPem))) {
    throw new Error('cluster CA found in cluster-info ConfigMap is invalid: none of the public keys have a matching hash');
  }
  const secure = await getClusterInfoAnonymously(serverUrl, caPem);
  if (secure.body.data?.kubeconfig !== kubeconfig) {
    throw new Error('the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first');
  }
  return { server, caPem, kubeconfig };
}

/**
 * The kubeconfig kubeadm join gives the kubelet as --bootstrap-kubeconfig (bootstrap-kubelet.conf):
 * the discovered server and CA, the token as the credential (cluster `kubernetes`, user
 * `tls-bootstrap-token-user`).
 */
export function bootstrapKubeconfig(found: DiscoveredCluster, token: string): string {
  const cluster = 'kubernetes';
  const user = 'tls-bootstrap-token-user';
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: found.server, 'certificate-authority-data': Buffer.from(found.caPem).toString('base64') } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: `${user}@${cluster}`, context: { cluster, user } }],
    'current-context': `${user}@${cluster}`,
  });
}
