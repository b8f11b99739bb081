/**
 * Encryption at rest through the API (HTTPS) with etcd read and written directly: what etcd
 * holds per provider (kube's `k8s:enc:<provider>:v1:<key>:` prefix, never the plaintext), what
 * clients read (plaintext from GET, list and watch), the etcd key as aesgcm's authenticated data,
 * key rotation by reload and a rewrite with real kubectl
 * (`kubectl get secrets -A -o json | kubectl replace -f -`), identity first, and the 500s of
 * data no provider can read.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { adminTarget, WatchClient } from '../helpers/watch-client';
import { crdHttp } from '../helpers/crd-http';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { AesGcmTransformer } from '../../lib/storage/value/aes';

const key = (bytes: number, fill: number) => Buffer.alloc(bytes, fill).toString('base64');
const K1 = key(32, 0x11);
const K2 = key(32, 0x22);
const CBC = key(16, 0x33);
const BOX = key(32, 0x44);
const GROUP = 'enc.example.com';
const PASSWORD = 'correct horse battery staple';
const PASSWORD_B64 = Buffer.from(PASSWORD).toString('base64');

type Provider = Record<string, unknown>;
const aesgcm = (name: string, secret: string): Provider => ({ aesgcm: { keys: [{ name, secret }] } });

function configJson(secrets: Provider[]): string {
  return JSON.stringify({
    apiVersion: 'apiserver.config.orch.io/v1', kind: 'EncryptionConfiguration',
    resources: [
      { resources: ['secrets'], providers: secrets },
      { resources: ['configmaps'], providers: [{ aescbc: { keys: [{ name: 'c1', secret: CBC }] } }] },
      { resources: [`*.${GROUP}`], providers: [{ secretbox: { keys: [{ name: 'b1', secret: BOX }] } }] },
    ],
  });
}

/** `sh -c` with the pipe as a user types it. */
function sh(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const secret = (name: string, extra: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { password: PASSWORD_B64, ...extra },
});

describe('encryption at rest (--encryption-provider-config)', function () {
  this.timeout(120_000);
  let dir: string;
  let etcd: TestEtcd;
  let raw: Etcd3Storage;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'enc-at-rest-'));
    etcd = await startTestEtcd();
    raw = new Etcd3Storage(new EtcdKvClient({ endpoints: [etcd.endpoint] }));
  });
  after(async () => {
    await raw?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const rawValue = async (k: string) => {
    const r = await raw.get(k);
    expect(r.kv, `etcd has ${k}`).to.not.equal(undefined);
    return r.kv!.value;
  };
  const ns = async (t: TestServer, name: string) => {
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    expect(res.status, res.text).to.equal(201);
  };

  describe('with automatic reload', () => {
    let t: TestServer;
    const file = () => path.join(dir, 'encryption.json');
    before(async () => {
      writeFileSync(file(), configJson([aesgcm('k1', K1)]));
      t = await startTestServer([`--encryption-provider-config=${file()}`, '--encryption-provider-config-automatic-reload',
        '--encryption-provider-config-reload-interval=200ms'], { etcd });
      await ns(t, 'enc-a');
      await ns(t, 'enc-b');
    });
    after(async () => { await t?.stop(); });

    it('aesgcm: etcd holds k8s:enc:aesgcm:v1:k1: and no plaintext; GET, list and watch return the plaintext', async () => {
      const watch = new WatchClient(adminTarget(t.server), '/api/v1/namespaces/enc-a/secrets?watch=true');
      await watch.response();
      const created = await t.post('/api/v1/namespaces/enc-a/secrets', secret('s1'));
      expect(created.status, created.text).to.equal(201);
      const stored = await rawValue('/registry/secrets/enc-a/s1');
      expect(stored.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k1:')).to.equal(true);
      expect(stored.includes(PASSWORD_B64)).to.equal(false);
      expect(stored.includes(PASSWORD)).to.equal(false);
      expect(stored.includes('enc-a')).to.equal(false); // the metadata is encrypted too
      // Kube's layout, opened here with node:crypto directly: prefix(21) || nonce(12) || ciphertext || tag(16), AAD = the etcd key.
      const body = stored.subarray(21);
      const decipher = createDecipheriv('aes-256-gcm', Buffer.from(K1, 'base64'), body.subarray(0, 12));
      decipher.setAAD(Buffer.from('/registry/secrets/enc-a/s1'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      const plain = JSON.parse(Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]).toString());
      expect(plain.data.password).to.equal(PASSWORD_B64);
      expect(plain.metadata.uid).to.equal(created.body.metadata.uid);
      const got = await t.get('/api/v1/namespaces/enc-a/secrets/s1');
      expect(got.status).to.equal(200);
      expect(got.body.data.password).to.equal(PASSWORD_B64);
      const list = await t.get('/api/v1/namespaces/enc-a/secrets');
      expect(list.body.items.map((s: any) => s.data.password)).to.deep.equal([PASSWORD_B64]);
      const ev = await watch.waitFor((e) => e.object?.metadata?.name === 's1');
      expect(ev.type).to.equal('ADDED');
      expect(ev.object.data.password).to.equal(PASSWORD_B64);
      watch.close();
    });

    it('aescbc for ConfigMaps, secretbox for custom resources of *.<group>; others stay plaintext', async () => {
      const cm = await t.post('/api/v1/namespaces/enc-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { motto: PASSWORD } });
      expect(cm.status, cm.text).to.equal(201);
      const cmStored = await rawValue('/registry/configmaps/enc-a/cm1');
      expect(cmStored.toString('latin1').startsWith('k8s:enc:aescbc:v1:c1:')).to.equal(true);
      expect((cmStored.length - 'k8s:enc:aescbc:v1:c1:'.length) % 16).to.equal(0);
      expect(cmStored.includes(PASSWORD)).to.equal(false);
      expect((await t.get('/api/v1/namespaces/enc-a/configmaps/cm1')).body.data.motto).to.equal(PASSWORD);

      const crs = crdHttp(() => t, 'enc-a');
      await crs.install(GROUP);
      await crs.created(crs.base(GROUP), { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'ct1' }, spec: { image: PASSWORD } });
      const keys = (await raw.range('/registry/')).kvs.filter((kv) => kv.key.includes('crontabs') && kv.key.endsWith('/enc-a/ct1'));
      expect(keys, 'the CronTab in etcd').to.have.length(1);
      expect(keys[0].value.toString('latin1').startsWith('k8s:enc:secretbox:v1:b1:')).to.equal(true);
      expect(keys[0].value.includes(PASSWORD)).to.equal(false);
      expect((await t.get(`${crs.base(GROUP)}/ct1`)).body.spec.image).to.equal(PASSWORD);
      // The CRD itself and the namespace are not covered by a rule.
      const nsStored = await rawValue('/registry/namespaces/enc-a');
      expect(nsStored.includes(Buffer.from('enc-a'))).to.equal(true);
      expect(nsStored.toString('latin1').startsWith('k8s:enc:')).to.equal(false);
    });

    it('rotation: [k2,k1] reloaded, old values read; kubectl get | kubectl replace rewrites all with k2; k1 dropped, all still read', async () => {
      const names: Array<[string, string]> = [];
      for (const n of ['enc-a', 'enc-b']) {
        for (let i = 0; i < 3; i++) {
          const res = await t.post(`/api/v1/namespaces/${n}/secrets`, secret(`rot-${i}`, { n: Buffer.from(`${n}/${i}`).toString('base64') }));
          expect(res.status, res.text).to.equal(201);
          names.push([n, `rot-${i}`]);
        }
      }
      const secretKeys = async () => (await raw.range('/registry/secrets/')).kvs;
      expect((await secretKeys()).every((kv) => kv.value.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k1:'))).to.equal(true);

      writeFileSync(file(), configJson([aesgcm('k2', K2), aesgcm('k1', K1)]));
      // The reload is seen by the next write: a new Secret is stored with k2.
      await eventually(async () => {
        const probe = `probe-${Date.now()}`;
        expect((await t.post('/api/v1/namespaces/enc-b/secrets', secret(probe))).status).to.equal(201);
        return (await rawValue(`/registry/secrets/enc-b/${probe}`)).toString('latin1').startsWith('k8s:enc:aesgcm:v1:k2:');
      }, 10_000, 100);
      for (const [n, name] of names) {
        const got = await t.get(`/api/v1/namespaces/${n}/secrets/${name}`);
        expect(got.status, got.text).to.equal(200);
        expect(got.body.data.password).to.equal(PASSWORD_B64);
      }
      expect((await secretKeys()).some((kv) => kv.value.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k1:'))).to.equal(true);

      const kubectl = `kubectl --kubeconfig ${t.server.kubeconfigPath} --cache-dir=${path.join(dir, 'kube-cache')}`;
      const started = Date.now();
      // --validate=false: kubectl validates a `List` against /openapi/v2, which it asks for in
      // protobuf only; this server serves OpenAPI as JSON (406), so validation of a List fails.
      const rewrite = await sh(`${kubectl} get secrets -A -o json | ${kubectl} replace --validate=false -f -`);
      const rewriteMs = Date.now() - started;
      expect(rewrite.code, rewrite.stderr).to.equal(0);
      const all = await secretKeys();
      expect(all.length).to.be.greaterThan(names.length);
      for (const kv of all) expect(kv.value.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k2:'), kv.key).to.equal(true);
      console.log(`      rotation: ${all.length} Secrets rewritten with k2 by kubectl get | kubectl replace in ${rewriteMs} ms`);

      writeFileSync(file(), configJson([aesgcm('k2', K2)]));
      await eventually(async () => {
        const probe = `probe2-${Date.now()}`;
        expect((await t.post('/api/v1/namespaces/enc-b/secrets', secret(probe))).status).to.equal(201);
        const metrics = await t.get('/metrics');
        return /apiserver_encryption_config_controller_automatic_reloads_total\{status="success"\} 2/.test(metrics.text);
      }, 10_000, 100);
      // A new server on the same etcd with only k2 (its watch cache lists everything from etcd) reads every Secret.
      const t2 = await startTestServer([`--encryption-provider-config=${file()}`], { etcd });
      try {
        for (const [n, name] of names) {
          const got = await t2.get(`/api/v1/namespaces/${n}/secrets/${name}`);
          expect(got.status, got.text).to.equal(200);
          expect(Buffer.from(got.body.data.n, 'base64').toString()).to.equal(`${n}/${name.slice(4)}`);
        }
        const list = await t2.get('/api/v1/secrets');
        expect(list.status, list.text).to.equal(200);
      } finally {
        await t2.stop();
      }
    });

    it('a bad new file is logged and counted, and the previous configuration stays', async () => {
      writeFileSync(file(), configJson([{ aesgcm: { keys: [{ name: 'k3', secret: key(9, 1) }] } }]));
      await eventually(async () => /apiserver_encryption_config_controller_automatic_reloads_total\{status="failure"\} 1/.test((await t.get('/metrics')).text), 10_000, 100);
      const res = await t.post('/api/v1/namespaces/enc-a/secrets', secret('after-bad-file'));
      expect(res.status, res.text).to.equal(201);
      expect((await rawValue('/registry/secrets/enc-a/after-bad-file')).toString('latin1').startsWith('k8s:enc:aesgcm:v1:k2:')).to.equal(true);
      const metrics = (await t.get('/metrics')).text;
      expect(metrics).to.match(/apiserver_storage_transformation_operations_total\{resource="secrets",transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"\} \d+/);
    });

    it('identity first: new writes are plaintext in etcd, encrypted values are still read', async () => {
      writeFileSync(file(), configJson([{ identity: {} }, aesgcm('k2', K2)]));
      await eventually(async () => {
        const probe = `plain-${Date.now()}`;
        expect((await t.post('/api/v1/namespaces/enc-a/secrets', secret(probe))).status).to.equal(201);
        return (await rawValue(`/registry/secrets/enc-a/${probe}`)).includes(PASSWORD_B64);
      }, 10_000, 100);
      const t2 = await startTestServer([`--encryption-provider-config=${file()}`], { etcd });
      try {
        const got = await t2.get('/api/v1/namespaces/enc-a/secrets/s1');
        expect(got.status, got.text).to.equal(200);
        expect(got.body.data.password).to.equal(PASSWORD_B64);
        expect((await rawValue('/registry/secrets/enc-a/s1')).toString('latin1').startsWith('k8s:enc:aesgcm:v1:')).to.equal(true);
        // A rewrite of the unchanged object stores it with the first provider (stale read): plaintext now.
        const put = await t2.put('/api/v1/namespaces/enc-a/secrets/s1', got.body);
        expect(put.status, put.text).to.equal(200);
        expect((await rawValue('/registry/secrets/enc-a/s1')).includes(PASSWORD_B64)).to.equal(true);
      } finally {
        await t2.stop();
      }
    });
  });

  describe('data no provider reads (etcd read directly, without the watch cache)', () => {
    let t: TestServer;
    let own: Etcd3Storage;
    const K9 = key(16, 0x99);
    before(async () => {
      const file = path.join(dir, 'gcm-only.json');
      writeFileSync(file, configJson([aesgcm('k9', K9)]));
      // Its own etcd: the values planted here must not reach the other servers' controllers.
      t = await startTestServer([`--encryption-provider-config=${file}`, '--watch-cache=false']);
      own = new Etcd3Storage(new EtcdKvClient({ endpoints: [t.etcdEndpoint] }));
      await ns(t, 'enc-c');
    });
    after(async () => {
      await own?.close();
      await t?.stop();
    });

    it('an aesgcm value moved to another key does not decrypt (the etcd key is authenticated): 500', async () => {
      expect((await t.post('/api/v1/namespaces/enc-c/secrets', secret('orig'))).status).to.equal(201);
      const stored = (await own.get('/registry/secrets/enc-c/orig')).kv!.value;
      expect((await own.create('/registry/secrets/enc-c/moved', stored)).ok).to.equal(true);
      const res = await t.get('/api/v1/namespaces/enc-c/secrets/moved');
      expect(res.status).to.equal(500);
      expect(res.body.reason).to.equal('InternalError');
      expect(res.body.message).to.equal('Internal error occurred: cipher: message authentication failed');
      expect(res.text).to.not.include(PASSWORD_B64);
      const list = await t.get('/api/v1/namespaces/enc-c/secrets');
      expect(list.status).to.equal(500);
      expect(list.body.message).to.equal('Internal error occurred: unable to transform key "/registry/secrets/enc-c/moved": cipher: message authentication failed');
      await own.delete('/registry/secrets/enc-c/moved', (await own.get('/registry/secrets/enc-c/moved')).kv!.modRevision);
    });

    it('a value of a provider not configured, or of a key dropped from the file: 500 as kube answers', async () => {
      expect((await own.create('/registry/secrets/enc-c/boxed', Buffer.from('k8s:enc:secretbox:v1:b1:0123456789012345678901234567890123456789'))).ok).to.equal(true);
      const res = await t.get('/api/v1/namespaces/enc-c/secrets/boxed');
      expect(res.status).to.equal(500);
      expect(res.body.message).to.equal('Internal error occurred: no matching prefix found');
      // As if written with k1 before k1 left the file: the server knows only k9.
      const sealed = new AesGcmTransformer(Buffer.from(K1, 'base64')).toStorage(Buffer.from(JSON.stringify(secret('old-key'))), '/registry/secrets/enc-c/old-key');
      expect((await own.create('/registry/secrets/enc-c/old-key', Buffer.concat([Buffer.from('k8s:enc:aesgcm:v1:k1:'), sealed]))).ok).to.equal(true);
      const r2 = await t.get('/api/v1/namespaces/enc-c/secrets/old-key');
      expect(r2.status).to.equal(500);
      expect(r2.body.message).to.equal('Internal error occurred: no matching key was found for the provided AES transformer');
      // The server stays up and serves the rest.
      expect((await t.get('/api/v1/namespaces/enc-c/secrets/orig')).status).to.equal(200);
    });
  });

  describe('an unreadable value under the watch cache', () => {
    let t: TestServer;
    let own: Etcd3Storage;
    before(async () => {
      const file = path.join(dir, 'cached.json');
      writeFileSync(file, configJson([aesgcm('k1', K1)]));
      t = await startTestServer([`--encryption-provider-config=${file}`]);
      own = new Etcd3Storage(new EtcdKvClient({ endpoints: [t.etcdEndpoint] }));
      await ns(t, 'enc-d');
    });
    after(async () => {
      await own?.close();
      await t?.stop();
    });

    it('answers 500 for it, serves the others, and the cache recovers once the value is gone', async () => {
      expect((await t.post('/api/v1/namespaces/enc-d/secrets', secret('fine'))).status).to.equal(201);
      expect((await own.create('/registry/secrets/enc-d/bad', Buffer.from('k8s:enc:secretbox:v1:zz:0123456789012345678901234567890123456789'))).ok).to.equal(true);
      const bad = await t.get('/api/v1/namespaces/enc-d/secrets/bad');
      expect(bad.status).to.equal(500);
      expect(bad.body.message).to.equal('Internal error occurred: no matching prefix found');
      expect((await t.get('/api/v1/namespaces/enc-d/secrets/fine')).status).to.equal(200);
      expect((await t.get('/api/v1/namespaces/enc-d/configmaps')).status).to.equal(200);
      await own.delete('/registry/secrets/enc-d/bad', (await own.get('/registry/secrets/enc-d/bad')).kv!.modRevision);
      expect((await t.post('/api/v1/namespaces/enc-d/secrets', secret('after'))).status).to.equal(201);
      // resourceVersion=0 is served from the watch cache as it is: it shows `after` once the cache follows etcd again.
      await eventually(async () => {
        const list = await t.get('/api/v1/namespaces/enc-d/secrets?resourceVersion=0');
        return list.status === 200 && list.body.items.map((s: any) => s.metadata.name).join(',') === 'after,fine';
      }, 20_000, 200);
    });
  });
});
