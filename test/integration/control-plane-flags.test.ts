/**
 * kube-apiserver flags that a Kubernetes control plane's start script gives and the server took
 * on for it (issue 40), each observed in effect through HTTP on a real etcd:
 *  - --allow-privileged=false: a Pod, or a workload's pod template, with a privileged container is
 *    refused as kube-apiserver refuses it (422, `...securityContext.privileged: Forbidden:
 *    disallowed by cluster policy`) and the store is untouched; `privileged: false` passes;
 *  - --proxy-client-cert-file / --proxy-client-key-file: a matching pair lets the server start; a
 *    key of another certificate, or a file that is no certificate, stops the start with a line
 *    naming the flag, and nothing is left serving.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';
import { createTestCa, issueTestCert } from '../helpers/test-ca';
import { setAllowPrivileged } from '../../lib/registry/core/pod-spec/capabilities';

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const FORBIDDEN = 'disallowed by cluster policy';

const container = (privileged?: boolean) => ({
  name: 'c', image: 'busybox', ...(privileged === undefined ? {} : { securityContext: { privileged } }),
});
const pod = (name: string, privileged?: boolean) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [container(privileged)] },
});

describe('control-plane flags: --allow-privileged and --proxy-client-*', function () {
  this.timeout(60_000);
  let dir: string;
  let files: { cert: string; key: string; otherKey: string; notCert: string };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cp-flags-'));
    const ca = createTestCa('front-proxy-ca');
    const client = issueTestCert(ca, { commonName: 'front-proxy-client' });
    const other = issueTestCert(ca, { commonName: 'someone-else' });
    files = {
      cert: path.join(dir, 'proxy.crt'), key: path.join(dir, 'proxy.key'),
      otherKey: path.join(dir, 'other.key'), notCert: path.join(dir, 'not-a-cert.crt'),
    };
    writeFileSync(files.cert, client.certPem);
    writeFileSync(files.key, client.keyPem);
    writeFileSync(files.otherKey, other.keyPem);
    writeFileSync(files.notCert, 'not a certificate\n');
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    // Process-wide like Kubernetes' capabilities: back to the default for later suites in this process.
    setAllowPrivileged(true);
  });

  describe('on a server with --allow-privileged=false and a front-proxy client pair', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(['--allow-privileged=false', `--proxy-client-cert-file=${files.cert}`, `--proxy-client-key-file=${files.key}`]);
    });
    after(async () => { await t?.stop(); });

    it('refuses a pod with a privileged container with Kubernetes\' cause, leaving the store untouched', async () => {
      const res = await rejectedLeavingStore(t, PODS, () => t.post(PODS, pod('priv', true)));
      expectInvalidCauses(res, 'Pod', [{ field: 'spec.containers[0].securityContext.privileged', reason: 'FieldValueForbidden', message: `Forbidden: ${FORBIDDEN}` }]);
      expect((await t.get(`${PODS}/priv`)).status).to.equal(404);
    });

    it('refuses a privileged init container at its own path', async () => {
      const body = pod('priv-init');
      (body.spec as Record<string, unknown>).initContainers = [{ ...container(true), name: 'init' }];
      const res = await rejectedLeavingStore(t, PODS, () => t.post(PODS, body));
      expectInvalidCauses(res, 'Pod', [{ field: 'spec.initContainers[0].securityContext.privileged', reason: 'FieldValueForbidden', message: `Forbidden: ${FORBIDDEN}` }]);
    });

    it('refuses a Deployment whose template has a privileged container', async () => {
      const deployment = {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'priv' },
        spec: {
          selector: { matchLabels: { app: 'priv' } },
          template: { metadata: { labels: { app: 'priv' } }, spec: { containers: [container(true)] } },
        },
      };
      const res = await rejectedLeavingStore(t, DEPLOYMENTS, () => t.post(DEPLOYMENTS, deployment));
      expectInvalidCauses(res, 'Deployment', [{ field: 'spec.template.spec.containers[0].securityContext.privileged', reason: 'FieldValueForbidden', message: `Forbidden: ${FORBIDDEN}` }]);
    });

    it('admits pods that are not privileged, with privileged: false or no security context', async () => {
      expect((await t.post(PODS, pod('unprivileged', false))).status).to.equal(201);
      expect((await t.post(PODS, pod('plain'))).status).to.equal(201);
    });
  });

  it('a key that is not the certificate\'s stops the start, naming both flags', async () => {
    let failure: Error | undefined;
    try {
      const t = await startTestServer([`--proxy-client-cert-file=${files.cert}`, `--proxy-client-key-file=${files.otherKey}`]);
      await t.stop();
    } catch (err) {
      failure = err as Error;
    }
    expect(failure?.message).to.include('--proxy-client-cert-file').and.include('--proxy-client-key-file')
      .and.include('private key does not match public key');
  });

  it('a certificate file that holds no certificate stops the start, naming the flag', async () => {
    let failure: Error | undefined;
    try {
      const t = await startTestServer([`--proxy-client-cert-file=${files.notCert}`, `--proxy-client-key-file=${files.key}`]);
      await t.stop();
    } catch (err) {
      failure = err as Error;
    }
    expect(failure?.message).to.include(`--proxy-client-cert-file=${files.notCert}: not a PEM certificate`);
  });
});
