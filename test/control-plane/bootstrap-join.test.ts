/**
 * kubeadm's join path end to end in the control-plane suite (make test-control-plane): the
 * server started as kube-apiserver, Kubernetes 1.20's kube-controller-manager (its bootstrapsigner
 * signs cluster-info, its csrapproving approves, its csrsigning signs) and kube-scheduler, and
 * hollow kubelets that join with a bootstrap token only. The test does what `kubeadm init` does
 * for joining nodes (cluster-info, its RBAC objects, a token), then what `kubeadm join` does:
 * token discovery (anonymous read of cluster-info, JWS checked with the token, CA pinned by its
 * public-key hash) and a bootstrap kubeconfig from what it found. Each kubelet starts from that
 * kubeconfig (--bootstrap-kubeconfig, --kubeconfig not there yet, --cert-dir), requests its client
 * certificate as system:bootstrap:<id>, switches to the signed one, registers its Node and runs Pods.
 * Last, kubeadm 1.20's own `kubeadm join` joins a third hollow kubelet: its token discovery, its
 * bootstrap-kubelet.conf, the kubelet's TLS bootstrap it waits for, and the Node annotation it
 * writes with the kubelet's certificate. kubeadm runs chrooted in the node's directory (--rootfs),
 * so that /etc/kubernetes and /var/lib/kubelet are the node's own, without root's preflight checks.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { ControlPlaneCluster } from './cluster';
import { Obj, clusterChecks } from './checks';
import { KUBE_BIN, startComponent } from './components';
import { newBootstrapToken } from '../helpers/bootstrap-token';
import { DiscoveredCluster, NODE_TOKEN_GROUP, bootstrapKubeconfig, caCertHash, discoverWithToken, kubeadmInitObjects, kubeadmTokenSecret } from '../helpers/kubeadm-join';
import { clusterInfoKubeconfig } from '../../lib/controllers/bootstrap-signer';

const NODES = ['orch-join-node-0', 'orch-join-node-1'];
/** The node that `kubeadm join` itself joins. */
const KUBEADM_NODE = 'orch-join-node-2';
const NS = 'join-e2e';
const IMAGE = 'registry.k8s.io/pause:3.2';

describe('kubeadm join: hollow kubelets join a 1.20 control plane on the server with a bootstrap token', function () {
  this.timeout(300_000);
  const cluster = new ControlPlaneCluster({ nodeNames: NODES });
  const { ok, getJson, eventually } = clusterChecks(cluster);
  const token = newBootstrapToken();
  let failed = false;
  let discovered: DiscoveredCluster;

  /** Creates `objects` as the admin, as kubeadm init would (kubectl create -f of a List). */
  async function create(file: string, objects: Obj[]): Promise<void> {
    const p = path.join(cluster.dir, file);
    writeFileSync(p, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await ok(['create', '-f', p]);
  }

  before(async function () {
    this.timeout(600_000);
    if (process.getuid?.() !== 0) throw new Error('the control-plane suite needs root (unshare -m, mount --rbind, /etc/hosts)');
    ControlPlaneCluster.checkBinaries();
    await cluster.startServer();
    await cluster.startControlPlane();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async function () {
    this.timeout(60_000);
    const keep = failed || !!process.env.KEEP_CONTROL_PLANE;
    if (keep) console.log(`bootstrap join: logs kept in ${cluster.logDir}`);
    await cluster.stop(keep);
  });

  it('kubeadm init\'s part: cluster-info, the bootstrap RBAC objects and a token; kube-controller-manager signs cluster-info with it', async () => {
    // The server's own bootstrapsigner is off here (kube-apiserver-flags.ts): cluster-info is kubeadm's to create.
    await create('kubeadm-init.json', [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' },
        data: { kubeconfig: clusterInfoKubeconfig(cluster.url, cluster.files!.pki.caCertPem) } },
      ...kubeadmInitObjects(),
      kubeadmTokenSecret(token.id, token.secret),
    ]);
    await eventually('the token\'s signature in cluster-info', 60_000, async () => {
      const cm = await getJson(['configmap', 'cluster-info', '-n', 'kube-public']);
      expect(cm.data).to.have.property(`jws-kubeconfig-${token.id}`);
    });
    expect(cluster.controllerManager!.grep(/Started "bootstrapsigner"/), 'kube-controller-manager runs its bootstrapsigner').to.have.length(1);
  });

  it('kubeadm join\'s discovery: anonymous read of cluster-info, the JWS verified with the token, the CA pinned by hash', async () => {
    discovered = await discoverWithToken(cluster.url, token.token, [caCertHash(cluster.files!.pki.caCertPem)]);
    expect(discovered.server).to.equal(cluster.url);
    expect(discovered.caPem).to.equal(cluster.files!.pki.caCertPem);
  });

  it('hollow kubelets started from the bootstrap kubeconfig register their Nodes and become Ready', async () => {
    await cluster.startNodes({ bootstrapKubeconfig: bootstrapKubeconfig(discovered, token.token) });
    await eventually('both nodes Ready', 180_000, async () => {
      const nodes: Obj[] = (await getJson(['nodes'])).items;
      expect(nodes.map((n) => n.metadata.name)).to.have.members(NODES);
      for (const n of nodes) {
        const ready = (n.status.conditions as Obj[] ?? []).find((c) => c.type === 'Ready');
        expect(ready?.status, `${n.metadata.name} Ready`).to.equal('True');
      }
    });
  });

  it('each kubelet\'s CSR: sent as the token, approved by kube-controller-manager, signed; the kubelet uses the signed certificate', async () => {
    const csrs: Obj[] = (await getJson(['csr'])).items;
    for (const name of NODES) {
      const mine = csrs.filter((c) => c.spec.username === `system:bootstrap:${token.id}`
        && new X509Certificate(Buffer.from(c.status?.certificate ?? '', 'base64')).subject.includes(`CN=system:node:${name}`));
      expect(mine, `the CSR of ${name}: ${JSON.stringify(csrs.map((c) => [c.metadata.name, c.spec.username, c.status?.conditions]))}`).to.have.length(1);
      const [csr] = mine;
      expect(csr.metadata.name).to.match(/^node-csr-/);
      expect(csr.spec.signerName).to.equal('kubernetes.io/kube-apiserver-client-kubelet');
      expect(csr.spec.groups).to.include.members(['system:bootstrappers', NODE_TOKEN_GROUP, 'system:authenticated']);
      expect(csr.spec.usages).to.have.members(['digital signature', 'key encipherment', 'client auth']);
      // kube-controller-manager's csrapproving (the server's is off here), after its SubjectAccessReview.
      expect(csr.status.conditions.find((c: Obj) => c.type === 'Approved'))
        .to.include({ status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
      const signed = new X509Certificate(Buffer.from(csr.status.certificate, 'base64'));
      expect(signed.checkIssued(new X509Certificate(cluster.files!.pki.caCertPem)), 'signed by the cluster CA').to.equal(true);
      // The kubelet's certificate store (kubelet-client-current.pem links into the node's /tmp/pki).
      const pki = path.join(cluster.nodeDir(name), 'pki');
      const current = readFileSync(path.join(pki, path.basename(readlinkSync(path.join(pki, 'kubelet-client-current.pem')))), 'utf8');
      expect(new X509Certificate(current).raw.equals(signed.raw), `${name}'s client certificate is the signed one`).to.equal(true);
      // The kubeconfig it wrote, and now uses, presents that certificate to the discovered server.
      const kubeconfig = parseYaml(readFileSync(path.join(cluster.nodeDir(name), 'kubeconfig'), 'utf8')) as Obj;
      expect(kubeconfig.clusters[0].cluster.server).to.equal(discovered.server);
      expect(kubeconfig.users[0].user['client-certificate']).to.equal('/tmp/pki/kubelet-client-current.pem');
      expect(existsSync(path.join(pki, 'kubelet-client.key.tmp')), 'the temporary key removed').to.equal(false);
    }
    // Each Node was registered under the node's own identity (NodeRestriction admits no other) and renews its Lease.
    const leases: Obj[] = (await getJson(['leases', '-n', 'kube-node-lease'])).items;
    expect(leases.map((l) => l.metadata.name)).to.include.members(NODES);
  });

  it('Pods are scheduled on the joined nodes and run', async () => {
    await ok(['create', 'namespace', NS]);
    await ok(['create', 'deployment', 'web', '-n', NS, `--image=${IMAGE}`, '--replicas=6']);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=180s'], 200_000);
    const pods: Obj[] = (await getJson(['pods', '-n', NS, '-l', 'app=web'])).items;
    expect(pods.filter((p) => p.status?.phase === 'Running')).to.have.length(6);
    for (const p of pods) expect(NODES, `${p.metadata.name} bound to a joined node`).to.include(p.spec.nodeName);
  });

  it('kubeadm join 1.20 itself joins a hollow kubelet: discovery, TLS bootstrap, the Node annotated as the kubelet', async () => {
    const root = cluster.nodeDir(KUBEADM_NODE);
    // The kubelet's paths are /tmp/... (its /tmp is this directory); `tmp` leads back here so that
    // they name the same files in kubeadm's chroot.
    symlinkSync('.', path.join(root, 'tmp'));
    const kubeadm = cluster.track(startComponent('kubeadm-join', [
      path.join(KUBE_BIN, 'kubeadm'), 'join', new URL(cluster.url).host, '--token', token.token,
      '--discovery-token-ca-cert-hash', caCertHash(cluster.files!.pki.caCertPem),
      `--rootfs=${root}`, '--skip-phases=preflight', `--node-name=${KUBEADM_NODE}`, '--cri-socket=/tmp/kubelet_remote.sock', '--v=1',
    ], cluster.logDir));
    const exited = new Promise<number | null>((resolve) => kubeadm.process.once('exit', (code) => resolve(code)));
    // After discovery kubeadm writes the kubelet's bootstrap kubeconfig and waits for the kubelet.
    const bootstrapConf = path.join(root, 'etc/kubernetes/bootstrap-kubelet.conf');
    await eventually('kubeadm\'s bootstrap-kubelet.conf', 120_000, async () => {
      expect(readFileSync(bootstrapConf, 'utf8'), 'the token in it').to.contain(token.token);
    });
    await cluster.startNode(KUBEADM_NODE, {
      kubeconfig: '/tmp/etc/kubernetes/kubelet.conf', bootstrapKubeconfig: '/tmp/etc/kubernetes/bootstrap-kubelet.conf', certDir: '/tmp/var/lib/kubelet/pki',
    });
    expect(await exited, `kubeadm join exit code:\n${kubeadm.tail(40)}`).to.equal(0);
    expect(kubeadm.grep(/Cluster info signature and contents are valid and TLS certificate validates against pinned roots/), 'discovery').to.have.length(1);
    expect(kubeadm.grep(/This node has joined the cluster/), 'joined').to.have.length(1);
    expect(existsSync(bootstrapConf), 'kubeadm removes the token from disk').to.equal(false);
    await eventually(`${KUBEADM_NODE} Ready`, 120_000, async () => {
      const node = await getJson(['node', KUBEADM_NODE]);
      expect((node.status.conditions as Obj[] ?? []).find((c) => c.type === 'Ready')?.status).to.equal('True');
      // kubeadm wrote this with the kubelet's new certificate (a node may patch its own Node only).
      expect(node.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).to.equal('/tmp/kubelet_remote.sock');
    });
  });
});
