/**
 * --kubelet-https (kube-apiserver's until 1.21): by default kubelets are dialled over TLS, and a
 * kubelet that serves plain HTTP (kubemark's hollow kubelets do) answers with Go's TLS error;
 * with --kubelet-https=false the server dials it in plain HTTP and the kubelet's answer comes back.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server-harness';
import { nodeFor } from '../helpers/kubelet-setup';

const NS = 'plain-kubelet';

async function plainKubelet(): Promise<{ server: http.Server; port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`plain log of ${req.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, paths };
}

async function withNodeAndPod(t: TestServer, port: number): Promise<void> {
  expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
  const node = await t.post('/api/v1/nodes', nodeFor('plain-node', { host: '127.0.0.1', port }));
  expect(node.status, node.text).to.equal(201);
  const pod = await t.post(`/api/v1/namespaces/${NS}/pods`, {
    metadata: { name: 'p' }, spec: { nodeName: 'plain-node', containers: [{ name: 'app', image: 'registry.example.com/app:1' }] },
  });
  expect(pod.status, pod.text).to.equal(201);
}

for (const [title, flags, reached] of [
  ['by default (https)', [], false],
  ['with --kubelet-https=false', ['--kubelet-https=false'], true],
] as const) {
  describe(`a kubelet serving plain HTTP, ${title}`, function () {
    this.timeout(60_000);
    let t: TestServer;
    let kubelet: Awaited<ReturnType<typeof plainKubelet>>;
    before(async () => {
      kubelet = await plainKubelet();
      t = await startTestServer([...flags]);
      await withNodeAndPod(t, kubelet.port);
    });
    after(async () => {
      await t?.stop();
      await new Promise((r) => kubelet?.server.close(r));
    });

    it(reached ? 'is dialled in plain HTTP: pods/log brings back its answer' : 'is dialled over TLS: pods/log answers Go\'s TLS error, and the kubelet sees nothing', async () => {
      const res = await t.get(`/api/v1/namespaces/${NS}/pods/p/log`);
      if (reached) {
        expect(res.status, res.text).to.equal(200);
        expect(res.text).to.equal('plain log of /containerLogs/plain-kubelet/p/app\n');
        expect(kubelet.paths).to.deep.equal(['/containerLogs/plain-kubelet/p/app']);
      } else {
        expect(res.status).to.equal(500);
        expect(res.body.message).to.equal(`Get "https://127.0.0.1:${kubelet.port}/containerLogs/plain-kubelet/p/app": tls: first record does not look like a TLS handshake`);
        expect(kubelet.paths).to.deep.equal([]);
      }
    });
  });
}
