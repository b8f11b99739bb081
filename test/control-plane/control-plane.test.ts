/**
 * The control-plane suite (make test-control-plane; not in make test): a real Kubernetes 1.20.2
 * kube-controller-manager, kube-scheduler and two hollow kubelets (kubemark) run against the
 * server, started as kube-apiserver would be, and kubectl 1.32 and the API check what a cluster
 * does: nodes register and are Ready, a Deployment's pods are scheduled and Running, rollouts,
 * scaling, Services get Endpoints and EndpointSlices, drain evicts within a PodDisruptionBudget,
 * the garbage collector and namespace controller clean up, kubelet client CSRs are approved and
 * signed, and logs and exec reach a kubelet through the server. The controllers and the kubelets
 * are Kubernetes' own: every assertion is about what the server served them.
 * The components' logs are in the run directory, kept (and named) when a test fails.
 */
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { ControlPlaneCluster } from './cluster';
import { SERVICE_CIDR } from './kube-apiserver-flags';
import { makeCsrPem } from '../helpers/csr-request';
import { newBootstrapToken } from '../helpers/bootstrap-token';
import { kubectlFor } from '../helpers/kubectl';
import { Obj, clusterChecks } from './checks';

const NODES = ['orch-cp-node-0', 'orch-cp-node-1'];
const NS = 'cp-e2e';
const IMAGE = 'registry.k8s.io/pause:3.2';
const IMAGE_2 = 'registry.k8s.io/pause:3.1';

describe('a Kubernetes 1.20 control plane (controller-manager, scheduler, hollow kubelets) on the server', function () {
  this.timeout(300_000);
  const cluster = new ControlPlaneCluster({ nodeNames: NODES });
  let failed = false;
  const started = Date.now();

  const { kubectl, ok, getJson, eventually } = clusterChecks(cluster);
  const podsOf = async (selector: string): Promise<Obj[]> => (await getJson(['pods', '-n', NS, '-l', selector])).items;
  const running = (pods: Obj[]) => pods.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
  async function expectRunning(selector: string, n: number, timeoutMs = 120_000): Promise<Obj[]> {
    return eventually(`${n} Running pods of ${selector}`, timeoutMs, async () => {
      const pods = await podsOf(selector);
      expect(running(pods).length, `Running of ${pods.length}`).to.equal(n);
      expect(pods.length, 'pods in all').to.equal(n);
      return pods;
    });
  }

  before(async function () {
    this.timeout(600_000);
    // Hollow kubelets run in mount namespaces of their own (unshare, mount), and their names may
    // need a line in /etc/hosts.
    if (process.getuid?.() !== 0) throw new Error('the control-plane suite needs root (unshare -m, mount --rbind, /etc/hosts)');
    ControlPlaneCluster.checkBinaries();
    await cluster.startServer();
    await cluster.startControlPlane();
    await cluster.startNodes();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async function () {
    this.timeout(60_000);
    const keep = failed || !!process.env.KEEP_CONTROL_PLANE;
    // The numbers the README quotes: how long start and the whole run took.
    console.log(`control plane: start steps (ms) ${JSON.stringify(cluster.timings)}; run ${Math.round((Date.now() - started) / 1000)} s`);
    if (keep) console.log(`control plane: logs kept in ${cluster.logDir}`);
    await cluster.stop(keep);
  });

  it('the server takes every flag of a kube-apiserver command line', () => {
    expect(cluster.refusedFlags, 'kube-apiserver flags the server refuses').to.deep.equal([]);
    expect(cluster.unknownRuntimeConfig, '--runtime-config group versions the server does not have').to.deep.equal([]);
  });

  it('kube-controller-manager and kube-scheduler each lead on their Lease in kube-system', async () => {
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      await eventually(`the ${name} Lease held by ${name}`, 60_000, async () => {
        const lease = await getJson(['lease', '-n', 'kube-system', name]);
        expect(lease.spec.holderIdentity, 'holder').to.be.a('string').and.not.equal('');
        const log = name === 'kube-scheduler' ? cluster.scheduler! : cluster.controllerManager!;
        expect(log.grep(/successfully acquired lease/).length, `${name} log says it acquired the lease`).to.be.greaterThan(0);
      });
    }
    // Beside them, the server's own controllers hold a Lease of their own name.
    const own = await getJson(['lease', '-n', 'kube-system', 'orch-apiserver-controller-manager']);
    expect(own.spec.holderIdentity, 'the server\'s own Lease').to.be.a('string').and.not.equal('');
    const kcm = await getJson(['lease', '-n', 'kube-system', 'kube-controller-manager']);
    expect(kcm.spec.holderIdentity).to.not.equal(own.spec.holderIdentity);
  });

  it('hollow nodes register and become Ready', async () => {
    await eventually('both nodes Ready', 120_000, async () => {
      const nodes: Obj[] = (await getJson(['nodes'])).items;
      expect(nodes.map((n) => n.metadata.name)).to.have.members(NODES);
      for (const n of nodes) {
        const ready = (n.status.conditions as Obj[] ?? []).find((c) => c.type === 'Ready');
        expect(ready?.status, `${n.metadata.name} Ready`).to.equal('True');
      }
    });
    // Each kubelet renews its Lease in kube-node-lease.
    const leases: Obj[] = (await getJson(['leases', '-n', 'kube-node-lease'])).items;
    expect(leases.map((l) => l.metadata.name)).to.include.members(NODES);
  });

  it('a kubelet client CSR sent with a bootstrap token is approved and signed by the controller-manager', async () => {
    const token = newBootstrapToken();
    await ok(['create', 'secret', 'generic', token.name, '-n', 'kube-system', '--type=bootstrap.kubernetes.io/token',
      `--from-literal=token-id=${token.id}`, `--from-literal=token-secret=${token.secret}`,
      '--from-literal=usage-bootstrap-authentication=true', '--from-literal=auth-extra-groups=system:bootstrappers:kubeadm:default-node-token']);
    // kubeadm's bindings: bootstrappers may create CSRs, and theirs for a node client are auto-approved.
    await ok(['create', 'clusterrolebinding', 'cp-node-bootstrapper', '--clusterrole=system:node-bootstrapper', '--group=system:bootstrappers']);
    await ok(['create', 'clusterrolebinding', 'cp-node-autoapprove', '--clusterrole=system:certificates.k8s.io:certificatesigningrequests:nodeclient', '--group=system:bootstrappers']);
    const csr = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'cp-node-csr' },
      spec: {
        request: Buffer.from(makeCsrPem({ commonName: 'system:node:orch-cp-node-9', organizations: ['system:nodes'], keyType: 'ec' })).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'key encipherment', 'client auth'],
      },
    };
    // As a kubelet bootstraps: a kubeconfig with the bootstrap token alone.
    const asBootstrap = kubectlFor(await cluster.tokenKubeconfig('bootstrap.kubeconfig', token.token), `${cluster.dir}/kube-cache-bootstrap`, 60_000);
    const file = `${cluster.dir}/csr.json`;
    writeFileSync(file, JSON.stringify(csr));
    const created = await asBootstrap(['create', '-f', file]);
    expect(created.code, `create as the bootstrap token: ${created.stderr}`).to.equal(0);
    const signed = await eventually('the CSR approved and signed', 60_000, async () => {
      const c = await getJson(['csr', 'cp-node-csr']);
      expect(c.spec.username, 'the requester').to.equal(`system:bootstrap:${token.id}`);
      expect((c.status.conditions ?? []).map((x: Obj) => x.type)).to.include('Approved');
      expect(c.status.certificate, 'certificate').to.be.a('string');
      return c;
    });
    const cert = new X509Certificate(Buffer.from(signed.status.certificate, 'base64'));
    expect(cert.subject).to.include('CN=system:node:orch-cp-node-9');
    expect(cert.checkIssued(new X509Certificate(cluster.files!.pki.caCertPem)), 'signed by the cluster CA').to.equal(true);
  });

  it('a 10-replica Deployment gets 10 Running pods spread over the nodes, and rollout status returns', async () => {
    await ok(['create', 'namespace', NS]);
    await ok(['create', 'deployment', 'web', '-n', NS, `--image=${IMAGE}`, '--replicas=10']);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=180s'], 200_000);
    const pods = await expectRunning('app=web', 10);
    for (const p of pods) expect(NODES, `${p.metadata.name} bound to a node`).to.include(p.spec.nodeName);
  });

  it('scales to 20 and back to 10', async () => {
    await ok(['scale', 'deployment/web', '-n', NS, '--replicas=20']);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=180s'], 200_000);
    await expectRunning('app=web', 20);
    await ok(['scale', 'deployment/web', '-n', NS, '--replicas=10']);
    await expectRunning('app=web', 10);
  });

  it('rolls out a new image and undoes it', async () => {
    await ok(['set', 'image', 'deployment/web', '-n', NS, `pause=${IMAGE_2}`]);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=180s'], 200_000);
    await ok(['rollout', 'undo', 'deployment/web', '-n', NS]);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=180s'], 200_000);
    const d = await getJson(['deployment', 'web', '-n', NS]);
    expect(d.spec.template.spec.containers[0].image).to.equal(IMAGE);
    expect(d.metadata.annotations['deployment.kubernetes.io/revision']).to.equal('3');
    const pods = await expectRunning('app=web', 10);
    for (const p of pods) expect(p.spec.containers[0].image).to.equal(IMAGE);
    const rss: Obj[] = (await getJson(['rs', '-n', NS, '-l', 'app=web'])).items;
    expect(rss.length, 'two ReplicaSets: the first (revision 3 now) and the undone one').to.equal(2);
  });

  it('kubectl expose gives a ClusterIP, and the controller-manager fills Endpoints and EndpointSlices', async () => {
    await ok(['expose', 'deployment/web', '-n', NS, '--port=80', '--target-port=8080']);
    const svc = await getJson(['service', 'web', '-n', NS]);
    expect(svc.spec.clusterIP, 'clusterIP').to.match(/^10\.(9[6-9]|1[01][0-9])\.\d+\.\d+$/);
    expect(SERVICE_CIDR).to.equal('10.96.0.0/12');
    const pods = await expectRunning('app=web', 10);
    const ips = pods.map((p) => p.status.podIP).filter(Boolean).sort();
    expect(ips.length, 'pods with an IP').to.equal(10);
    await eventually('Endpoints of web', 60_000, async () => {
      const ep = await getJson(['endpoints', 'web', '-n', NS]);
      const addrs = (ep.subsets ?? []).flatMap((s: Obj) => (s.addresses ?? []).map((a: Obj) => a.ip)).sort();
      expect(addrs).to.deep.equal(ips);
      expect(ep.subsets[0].ports[0].port).to.equal(8080);
    });
    // The EndpointSlice controller keeps one endpoint per address: hollow kubelets give every pod
    // the same IP, so the slices hold the distinct addresses.
    await eventually('EndpointSlices of web', 60_000, async () => {
      const slices: Obj[] = (await getJson(['endpointslices', '-n', NS, '-l', 'kubernetes.io/service-name=web'])).items;
      const addrs = slices.flatMap((s) => (s.endpoints ?? []).flatMap((e: Obj) => e.addresses)).sort();
      expect(addrs).to.deep.equal([...new Set(ips)]);
      expect(slices[0].ports[0].port).to.equal(8080);
      expect(slices[0].metadata.labels['endpointslice.kubernetes.io/managed-by']).to.equal('endpointslice-controller.k8s.io');
    });
  });

  it('kubectl logs, exec and port-forward reach a hollow kubelet through the server', async () => {
    const [pod] = await expectRunning('app=web', 10);
    const nodeName: string = pod.spec.nodeName;
    const node = await getJson(['node', nodeName]);
    const port: number = node.status.daemonEndpoints.kubeletEndpoint.Port;
    const logs = await kubectl(['logs', '-n', NS, pod.metadata.name]);
    const exec = await kubectl(['exec', '-n', NS, pod.metadata.name, '--', 'true']);
    const pf = await kubectl(['port-forward', '-n', NS, `pod/${pod.metadata.name}`, '0:80', '--pod-running-timeout=10s'], 20_000);
    console.log(`      logs: code ${logs.code}, ${logs.stdout.trim().slice(0, 200)} ${logs.stderr.trim()}\n      exec: code ${exec.code}, ${exec.stdout.trim().slice(0, 200)} ${exec.stderr.trim()}\n      port-forward: code ${pf.code}, ${pf.stderr.trim().slice(0, 300)}`);
    // The server dialled the node by its Hostname address at the kubelet port of its status
    // (--kubelet-https=false: hollow kubelets serve plain HTTP); what comes back is the hollow
    // kubelet's own answer (its fake runtime's output, or its error), not a dial error.
    for (const [what, r] of [['logs', logs], ['exec', exec], ['port-forward', pf]] as const) {
      expect(r.stderr, `${what} reached the kubelet`).to.not.match(/error dialing backend|dial tcp|connection refused|no such host|tls:/);
    }
    // The fake runtime keeps no log files, and its streaming server has no URL: these are its words.
    expect(logs.stdout + logs.stderr).to.contain('failed to read log file');
    expect(exec.stderr).to.contain('URL is not set');
    // port-forward too: the kubelet's /portForward route (capital F) answered, with the same words.
    expect(pf.stderr).to.contain('unable to upgrade connection: URL is not set');
    expect(port, 'the kubelet port the Node reports').to.be.greaterThan(0);
  });

  it('kubectl drain of a node evicts its pods within a PodDisruptionBudget', async () => {
    await ok(['create', 'poddisruptionbudget', 'web', '-n', NS, '--selector=app=web', '--min-available=9']);
    await eventually('the PDB status computed by the disruption controller', 60_000, async () => {
      const pdb = await getJson(['pdb', 'web', '-n', NS]);
      expect(pdb.status?.currentHealthy).to.equal(10);
      expect(pdb.status?.disruptionsAllowed).to.equal(1);
    });
    const node = NODES[0];
    const before = (await podsOf('app=web')).filter((p) => p.spec.nodeName === node).length;
    expect(before, `pods on ${node} before the drain`).to.be.greaterThan(0);
    const drain = await kubectl(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=240s'], 260_000);
    expect(drain.code, `drain: ${drain.stderr}\n${cluster.tails()}`).to.equal(0);
    // Evictions, not deletions: kubectl reports each pod "evicted", and (evicting them all at once
    // with one disruption allowed) some were refused for the budget first and retried.
    expect(drain.stdout).to.match(/evicted/);
    expect(drain.stderr).to.match(/Cannot evict pod as it would violate the pod's disruption budget/);
    const pods = await expectRunning('app=web', 10);
    expect(pods.filter((p) => p.spec.nodeName === node), `pods left on ${node}`).to.deep.equal([]);
    const n = await getJson(['node', node]);
    expect(n.spec.unschedulable).to.equal(true);
    await ok(['uncordon', node]);
  });

  it('deleting the Deployment lets the garbage collector remove its ReplicaSets and Pods', async () => {
    await ok(['delete', 'deployment', 'web', '-n', NS]);
    await eventually('ReplicaSets and Pods of web gone', 120_000, async () => {
      expect((await getJson(['rs', '-n', NS, '-l', 'app=web'])).items, 'ReplicaSets').to.deep.equal([]);
      expect(await podsOf('app=web'), 'Pods').to.deep.equal([]);
    });
  });

  it('deleting a namespace lets the namespace controller empty and remove it', async () => {
    await ok(['create', 'namespace', 'cp-doomed']);
    await ok(['create', 'configmap', 'c', '-n', 'cp-doomed', '--from-literal=a=b']);
    await ok(['create', 'deployment', 'doomed', '-n', 'cp-doomed', `--image=${IMAGE}`, '--replicas=2']);
    await ok(['rollout', 'status', 'deployment/doomed', '-n', 'cp-doomed', '--timeout=120s'], 140_000);
    await ok(['delete', 'namespace', 'cp-doomed', '--wait=false']);
    await eventually('namespace cp-doomed removed', 180_000, async () => {
      const r = await kubectl(['get', 'namespace', 'cp-doomed']);
      expect(r.code, r.stdout).to.not.equal(0);
      expect(r.stderr).to.match(/NotFound|not found/);
    });
  });
});
