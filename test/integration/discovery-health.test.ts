/**
 * What clients read before anything else (/version, discovery) and what machines probe
 * (/healthz, /livez, /readyz), through HTTPS against a real etcd.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';

const KUBECTL_DISCOVERY_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery and health', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  describe('GET /version', () => {
    it('answers version.Info with major 1, minor 32 (the kubectl dispatcher picks its release by it)', async () => {
      const res = await t.get('/version?timeout=5s');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.body).to.include({ major: '1', minor: '32' });
      expect(res.body.gitVersion).to.match(/^v1\.32\./);
      expect(res.body.platform).to.match(/^[a-z0-9]+\/[a-z0-9]+$/);
      expect(res.body.platform).to.equal(`${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`);
    });
  });

  describe('plain discovery', () => {
    it('/api is APIVersions with v1', async () => {
      const res = await t.get('/api');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json');
      expect(res.body.kind).to.equal('APIVersions');
      expect(res.body.versions).to.deep.equal(['v1']);
      expect(res.body.serverAddressByClientCIDRs[0].serverAddress).to.equal(`127.0.0.1:${t.server.port}`);
    });

    it('/apis is an APIGroupList', async () => {
      const res = await t.get('/apis');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ kind: 'APIGroupList', apiVersion: 'v1' });
      expect(res.body.groups).to.be.an('array');
      for (const g of res.body.groups) {
        expect(g.name).to.be.a('string').and.not.equal('');
        expect(g.versions).to.deep.include(g.preferredVersion);
      }
    });

    it('/api/v1 is an APIResourceList with namespaces, configmaps, secrets and the namespace subresources', async () => {
      const res = await t.get('/api/v1');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ kind: 'APIResourceList', groupVersion: 'v1' });
      const byName = new Map<string, any>(res.body.resources.map((r: any) => [r.name, r]));
      expect([...byName.keys()]).to.include.members(['namespaces', 'configmaps', 'secrets', 'namespaces/status', 'namespaces/finalize']);

      const ns = byName.get('namespaces');
      expect(ns).to.include({ singularName: 'namespace', namespaced: false, kind: 'Namespace' });
      expect(ns.verbs).to.include.members(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
      expect(ns.verbs).not.to.include('deletecollection');
      expect(ns.shortNames).to.deep.equal(['ns']);

      const cm = byName.get('configmaps');
      expect(cm).to.include({ singularName: 'configmap', namespaced: true, kind: 'ConfigMap' });
      expect(cm.shortNames).to.deep.equal(['cm']);
      expect(cm.verbs).to.include.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);

      const secrets = byName.get('secrets');
      expect(secrets).to.include({ singularName: 'secret', namespaced: true, kind: 'Secret' });
      expect(secrets.verbs).to.include.members(['create', 'delete', 'deletecollection', 'get', 'list', 'update', 'watch']);

      expect(byName.get('namespaces/status')).to.include({ kind: 'Namespace', namespaced: false });
      expect(byName.get('namespaces/status').verbs).to.include.members(['get', 'update']);
      expect(byName.get('namespaces/finalize').verbs).to.deep.equal(['update']);
    });

    it('an unknown group version is 404', async () => {
      expect((await t.get('/apis/nope.example.com/v1')).status).to.equal(404);
    });
  });

  describe('aggregated discovery (kubectl 1.32 Accept)', () => {
    it('/api answers an APIGroupDiscoveryList with the exact v2 Content-Type', async () => {
      const res = await t.get('/api', { headers: { accept: KUBECTL_DISCOVERY_ACCEPT } });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(res.body).to.include({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      expect(res.body.items).to.have.length(1);
      const v1 = res.body.items[0].versions.find((v: any) => v.version === 'v1');
      const cm = v1.resources.find((r: any) => r.resource === 'configmaps');
      expect(cm).to.deep.include({ scope: 'Namespaced', singularResource: 'configmap', shortNames: ['cm'] });
      expect(cm.responseKind).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
      const ns = v1.resources.find((r: any) => r.resource === 'namespaces');
      expect(ns.scope).to.equal('Cluster');
      expect(ns.subresources.map((s: any) => s.subresource)).to.include.members(['status', 'finalize']);
    });

    it('/apis answers an APIGroupDiscoveryList too', async () => {
      const res = await t.get('/apis', { headers: { accept: KUBECTL_DISCOVERY_ACCEPT } });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(res.body.kind).to.equal('APIGroupDiscoveryList');
      expect(res.body.items).to.be.an('array');
    });

    it('v2beta1 alone gets the v2beta1 Content-Type', async () => {
      const res = await t.get('/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    });
  });

  describe('health endpoints', () => {
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      it(`/${endpoint} answers 200 ok`, async () => {
        const res = await t.get(`/${endpoint}`);
        expect(res.status).to.equal(200);
        expect(res.text).to.equal('ok');
      });

      it(`/${endpoint}?verbose lists each check and a passed summary`, async () => {
        const res = await t.get(`/${endpoint}?verbose`);
        expect(res.status).to.equal(200);
        const lines = res.text.trimEnd().split('\n');
        expect(lines).to.include.members(['[+]ping ok', '[+]etcd ok']);
        expect(lines[lines.length - 1]).to.equal(`${endpoint} check passed`);
        for (const line of lines.slice(0, -1)) expect(line).to.match(/^\[\+\]\S+ ok$/);
      });
    }

    it('/readyz?verbose includes the shutdown check', async () => {
      const res = await t.get('/readyz?verbose');
      expect(res.text.split('\n')).to.include('[+]shutdown ok');
    });

    it('/readyz/etcd runs one check', async () => {
      const res = await t.get('/readyz/etcd');
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('ok');
    });

    it('?exclude=etcd prints the check as excluded', async () => {
      const res = await t.get('/readyz?verbose&exclude=etcd');
      expect(res.status).to.equal(200);
      const lines = res.text.split('\n');
      expect(lines).to.include('[+]etcd excluded: ok');
      expect(lines).not.to.include('[+]etcd ok');
      expect(lines).to.include('readyz check passed');
    });

    it('an unknown check is 404', async () => {
      expect((await t.get('/readyz/no-such-check')).status).to.equal(404);
      expect((await t.get('/livez/no-such-check')).status).to.equal(404);
    });
  });

  describe('anonymous access', () => {
    for (const p of ['/healthz', '/livez', '/readyz', '/version', '/version/', '/readyz?verbose']) {
      it(`${p} is readable without a client certificate`, async () => {
        const res = await t.get(p, { identity: null });
        expect(res.status, res.text).to.equal(200);
      });
    }

    it('single checks (/readyz/etcd) are not public: 403 for system:anonymous, as system:public-info-viewer grants only the exact paths', async () => {
      const res = await t.get('/readyz/etcd', { identity: null });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal('forbidden: User "system:anonymous" cannot get path "/readyz/etcd"');
    });

    it('/api/v1/namespaces is 403 for system:anonymous', async () => {
      const res = await t.get('/api/v1/namespaces', { identity: null });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden' });
    });

    it('discovery (/apis) is 403 for system:anonymous, with the non-resource sentence', async () => {
      const res = await t.get('/apis', { identity: null });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ reason: 'Forbidden', message: 'forbidden: User "system:anonymous" cannot get path "/apis"' });
      expect(res.body.details).to.deep.equal({});
    });
  });
});
