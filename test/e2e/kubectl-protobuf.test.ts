/**
 * The real kubectl (1.32) with default flags against the server process: the imperative
 * `create configmap|secret|namespace` commands, which send protobuf bodies and accept protobuf
 * answers (and never retry in JSON), and what a later JSON read shows of the created objects.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';

describe('kubectl imperative create (protobuf bodies)', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-pb');
  const { ok } = e2e;

  /** The request and response Content-Types kubectl logged at -v=8 for its POST. */
  function postContentTypes(stderr: string): string[] {
    return [...stderr.matchAll(/Content-Type: (\S+)/g)].map((m) => m[1]);
  }

  it('kubectl create configmap x --from-literal=a=b', async () => {
    const res = await ok(['create', 'configmap', 'x', '--from-literal=a=b', '-v=8']);
    expect(res.stdout.trim()).to.equal('configmap/x created');
    // Sent and answered in protobuf: the POST's and its response's Content-Type.
    expect(postContentTypes(res.stderr).filter((t) => t === 'application/vnd.kubernetes.protobuf')).to.have.length(2);
    expect(res.stderr).to.match(/Response Status: 201 Created/);
    const cm = JSON.parse((await ok(['get', 'configmap', 'x', '-o', 'json'])).stdout);
    expect(cm.data).to.deep.equal({ a: 'b' });
    expect(cm.metadata).to.include({ name: 'x', namespace: 'default' });
    expect(cm.metadata.creationTimestamp).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(cm).to.not.have.property('immutable');
  });

  it('kubectl create secret generic s --from-literal=k=v', async () => {
    expect((await ok(['create', 'secret', 'generic', 's', '--from-literal=k=v'])).stdout.trim()).to.equal('secret/s created');
    const secret = JSON.parse((await ok(['get', 'secret', 's', '-o', 'json'])).stdout);
    expect(secret.type).to.equal('Opaque');
    expect(secret.data).to.deep.equal({ k: Buffer.from('v').toString('base64') });
  });

  it('kubectl create ns n', async () => {
    expect((await ok(['create', 'ns', 'n'])).stdout.trim()).to.equal('namespace/n created');
    const ns = JSON.parse((await ok(['get', 'ns', 'n', '-o', 'json'])).stdout);
    expect(ns.status).to.deep.equal({ phase: 'Active' });
    expect(ns.spec.finalizers).to.have.length(1);
    // And the namespace is usable: an imperative create inside it.
    expect((await ok(['create', 'configmap', 'inside', '-n', 'n', '--from-literal=k=v'])).stdout.trim()).to.equal('configmap/inside created');
  });

  it('a second create of the same name fails with the server\'s AlreadyExists message', async () => {
    const res = await e2e.kubectl(['create', 'configmap', 'x', '--from-literal=a=b']);
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.match(/configmaps "x" already exists/);
  });

  it('--dry-run=server answers in protobuf and stores nothing', async () => {
    const res = await ok(['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server', '-o', 'json']);
    expect(JSON.parse(res.stdout).data).to.deep.equal({ a: 'b' });
    const get = await e2e.kubectl(['get', 'configmap', 'dry']);
    expect(get.code).to.not.equal(0);
    expect(get.stderr).to.match(/not found/);
  });
});
