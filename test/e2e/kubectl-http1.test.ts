/**
 * The real kubectl (1.32) over HTTP/1.1 against the real server process, that is against the
 * server's own HTTP/1.1 side (lib/http1). client-go offers no ALPN protocol when
 * DISABLE_HTTP2=true is in its environment, and the server's listener hands such connections to
 * that side. Covered: discovery, create, get in every output, label (PATCH), server-side apply,
 * replace with a stale manifest (409), a chunked list (`--chunk-size`, continue tokens), a
 * watch, and delete.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl over HTTP/1.1 (DISABLE_HTTP2=true) against the server process', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-http1');
  const { ok, fails, manifest } = e2e;
  let saved: string | undefined;

  before(() => {
    saved = process.env.DISABLE_HTTP2;
    // Every kubectl this suite starts (execFile and spawn inherit the environment) speaks HTTP/1.1.
    process.env.DISABLE_HTTP2 = 'true';
  });
  after(() => {
    if (saved === undefined) delete process.env.DISABLE_HTTP2;
    else process.env.DISABLE_HTTP2 = saved;
  });

  const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ...extra }, data });

  it('kubectl has HTTP/2 turned off, and discovery and get work', async () => {
    const { stdout, stderr } = await ok(['-v=6', 'get', 'ns']);
    expect(stderr).to.include('HTTP2 has been explicitly disabled');
    expect(parseTable(stdout).rows.map((r) => r.NAME)).to.include('default');
    const resources = await ok(['api-resources', '-o', 'name']);
    expect(resources.stdout.split('\n')).to.include.members(['configmaps', 'namespaces']);
  });

  it('create, get, label (PATCH), server-side apply, a stale replace (409) and delete', async () => {
    const file = manifest('h1-cm.yaml', configMap('h1-cm', { a: '1' }));
    expect((await ok(['create', '-f', file, '--validate=false'])).stdout.trim()).to.equal('configmap/h1-cm created');
    expect((await ok(['get', 'cm', 'h1-cm', '-o', 'jsonpath={.data.a}'])).stdout).to.equal('1');
    expect((await ok(['label', 'cm', 'h1-cm', 'tier=one'])).stdout.trim()).to.equal('configmap/h1-cm labeled');
    const applied = manifest('h1-apply.yaml', configMap('h1-cm', { a: '1', b: '2' }, { labels: { tier: 'one' } }));
    await ok(['apply', '--server-side', '--force-conflicts', '-f', applied, '--validate=false']);
    const got = JSON.parse((await ok(['get', 'cm', 'h1-cm', '-o', 'json'])).stdout);
    expect(got.data).to.deep.equal({ a: '1', b: '2' });
    expect(got.metadata.labels).to.deep.equal({ tier: 'one' });
    // A manifest carrying the old resourceVersion conflicts.
    const stale = manifest('h1-stale.yaml', configMap('h1-cm', { a: 'stale' }, { resourceVersion: '1' }));
    const conflict = await fails(['replace', '-f', stale, '--validate=false']);
    expect(conflict.stderr).to.include('Conflict');
    expect((await ok(['delete', 'cm', 'h1-cm'])).stdout.trim()).to.equal('configmap "h1-cm" deleted');
  });

  it('lists in chunks (continue tokens) and watches over HTTP/1.1', async () => {
    const items = Array.from({ length: 30 }, (_, i) => configMap(`h1-many-${i}`, { i: String(i) }));
    await ok(['create', '-f', manifest('h1-many.yaml', { apiVersion: 'v1', kind: 'List', items }), '--validate=false']);
    const listed = await ok(['-v=6', 'get', 'cm', '--chunk-size=7', '-o', 'name']);
    expect(listed.stdout.split('\n').filter((l) => l.startsWith('configmap/h1-many-'))).to.have.length(30);
    // Five pages: the first, then four with continue tokens.
    expect((listed.stderr.match(/continue=/g) ?? []).length).to.be.at.least(4);

    const watch = e2e.spawnKubectl(['-v=6', 'get', 'cm', 'h1-many-3', '-w', '-o', 'jsonpath={.data.i}{"\\n"}']);
    await watch.waitForStderr(/watch=true\S* 200 OK/);
    await ok(['label', 'cm', 'h1-many-3', 'seen=yes']);
    await ok(['delete', 'cm', 'h1-many-3']);
    // The object as first printed, then its label change; the deletion ends nothing for -w.
    await watch.waitFor((lines) => lines.length >= 2, 'the watch to print the labelled object');
  });
});
