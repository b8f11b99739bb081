/**
 * --encryption-provider-config: kube-apiserver's validation messages for bad files, resource
 * matching (`secrets`, `*.`, `*.<group>`, `*.*`, custom resources), and that no message shows a secret.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EncryptionAtRest, EncryptionConfigError, encryptionAtRestFromFlags, loadEncryptionConfig, parseEncryptionConfig } from '../../../lib/server/encryption-config';
import { MetricsRegistry } from '../../../lib/metrics/registry';

const K16 = Buffer.alloc(16, 1).toString('base64');
const K32 = Buffer.alloc(32, 2).toString('base64');
const NINE = Buffer.from('123456789').toString('base64');
const FILE = '/etc/enc.yaml';

const doc = (resources: unknown, apiVersion = 'apiserver.config.orch.io/v1') => Buffer.from(JSON.stringify({ apiVersion, kind: 'EncryptionConfiguration', resources }));
const gcm = (...keys: Array<[string, string]>) => ({ aesgcm: { keys: keys.map(([name, secret]) => ({ name, secret })) } });

function problem(data: Buffer): string {
  try {
    parseEncryptionConfig(data, FILE);
  } catch (err) {
    expect(err).to.be.instanceOf(EncryptionConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('encryption provider configuration', () => {
  const BAD: Array<[string, Buffer, string]> = [
    ['an empty file', Buffer.alloc(0), `error while parsing file: error while loading file: encryption provider configuration file "${FILE}" is empty`],
    ['another kind', Buffer.from('{"apiVersion":"apiserver.config.orch.io/v1","kind":"AdmissionConfiguration"}'),
      `error while parsing file: error decoding encryption provider configuration file "${FILE}": expected kind EncryptionConfiguration of apiserver.config.orch.io/v1 (or apiserver.config.k8s.io/v1), got "AdmissionConfiguration" of "apiserver.config.orch.io/v1"`],
    ['no resources', doc([]), 'error while parsing file: resources: Required value: at least one resources is required'],
    ['an entry without resources or providers', doc([{}]),
      'error while parsing file: [resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers: Required value: at least one resources[0].providers is required]'],
    ['two providers in one element', doc([{ resources: ['secrets'], providers: [{ ...gcm(['k', K16]), identity: {} }] }]),
      'error while parsing file: resources[0].providers[0]: Invalid value: {"aesgcm":{"keys":[{"name":"k","secret":"REDACTED"}]},"identity":{}}: more than one provider specified in a single element, should split into different list elements'],
    ['an unknown provider', doc([{ resources: ['secrets'], providers: [{ rot13: {} }] }]),
      'error while parsing file: resources[0].providers[0]: Invalid value: {"rot13":{}}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'],
    ['a key of 9 bytes', doc([{ resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'k', secret: NINE }] } }] }]),
      'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 9, expected one of [16 24 32]'],
    ['a secretbox key of 16 bytes', doc([{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'k', secret: K16 }] } }] }]),
      'error while parsing file: resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]'],
    ['a secret not in base64', doc([{ resources: ['secrets'], providers: [gcm(['k', 'not base64!'])] }]),
      'error while parsing file: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'],
    ['a key without name or secret', doc([{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{}] } }] }]),
      'error while parsing file: [resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key, resources[0].providers[0].aesgcm.keys[0].secret: Required value: secret is a mandatory field for a key]'],
    ['no keys', doc([{ resources: ['secrets'], providers: [{ aesgcm: { keys: [] } }] }]),
      'error while parsing file: resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required'],
    ['a capital letter', doc([{ resources: ['Secrets'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters'],
    ['a bare star', doc([{ resources: ['*'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources[0]: Invalid value: "*": use \'*.\' to encrypt all the resources from core API group or *.* to encrypt all resources'],
    ['the extensions group', doc([{ resources: ['deployments.extensions'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources[0]: Invalid value: "deployments.extensions": \'extensions\' group has been removed and cannot be used for encryption'],
    ['a resource without REST API', doc([{ resources: ['serviceipallocations'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted'],
    ['a resource across groups', doc([{ resources: ['secrets.*'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources[0]: Invalid value: "secrets.*": encrypting the same resource across groups is not supported'],
    ['a resource twice', doc([{ resources: ['secrets', 'secrets'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources: Invalid value: ["secrets","secrets"]: the same resource cannot be specified multiple times'],
    ['overlapping resources in one list', doc([{ resources: ['secrets', '*.'], providers: [{ identity: {} }] }]),
      'error while parsing file: resources[0].resources: Invalid value: ["secrets","*."]: using overlapping resources such as \'secrets\' and \'*.\' in the same resource list is not allowed as they will be masked'],
    ['a resource masked by an earlier *.', doc([{ resources: ['*.'], providers: [{ identity: {} }] }, { resources: ['secrets'], providers: [gcm(['k', K16])] }]),
      'error while building transformers: resource "secrets" is masked by earlier rule "*."'],
    ['a resource masked by an earlier *.*', doc([{ resources: ['*.*'], providers: [{ identity: {} }] }, { resources: ['leases.coordination.orch.io'], providers: [gcm(['k', K16])] }]),
      'error while building transformers: resource "leases.coordination.orch.io" is masked by earlier rule "*.*"'],
    ['a KMS provider', doc([{ resources: ['secrets'], providers: [{ kms: { name: 'vault', endpoint: 'unix:///tmp/kms.sock' } }] }]),
      'error while parsing file: resources[0].providers[0].kms: Forbidden: KMS providers are not supported by this server; use aesgcm, aescbc or secretbox'],
  ];
  for (const [what, data, message] of BAD) {
    it(`refuses ${what} with kube's message`, () => {
      expect(problem(data)).to.equal(message);
    });
  }

  it('never shows a secret in a message, not even under a misspelt field', () => {
    const secret = Buffer.from('0123456789abcdefg').toString('base64'); // 17 bytes
    const msg = problem(doc([
      { resources: ['secrets'], providers: [{ ...gcm(['k', secret]), identity: {} }] },
      { resources: ['configmaps'], providers: [gcm(['k', secret])] },
      { resources: ['pods'], providers: [{ aesgmc: { keys: [{ name: 'k', scret: secret }] } }] },
    ]));
    expect(msg).to.not.include(secret);
    expect(msg).to.include('resources[2].providers[0]: Invalid value: {"aesgmc":{"keys":[{"name":"k","scret":"REDACTED"}]}}: provider does not contain any of the expected providers');
  });

  it('reads YAML, and Kubernetes\' apiserver.config.k8s.io/v1 too', () => {
    const yaml = `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys:\n            - name: key1\n              secret: ${K32}\n      - identity: {}\n`;
    const state = parseEncryptionConfig(Buffer.from(yaml), FILE);
    const stored = state.transformerFor('secrets').toStorage(Buffer.from('{}'), '/registry/secrets/a/b');
    expect(stored.toString('latin1').startsWith('k8s:enc:aesgcm:v1:key1:')).to.equal(true);
  });

  it('matches a resource by its own rule, then *.<group>, then *.*; others are stored as they are', () => {
    const state = parseEncryptionConfig(doc([
      { resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 's', secret: K32 }] } }] },
      { resources: ['*.apps'], providers: [{ aescbc: { keys: [{ name: 'c', secret: K16 }] } }] },
      { resources: ['widgets.example.com'], providers: [gcm(['w', K16])] },
      { resources: ['*.'], providers: [gcm(['core', K16])] },
    ]), FILE);
    const prefixOf = (resource: string) => state.transformerFor(resource).toStorage(Buffer.from('{"a":1}'), '/k').toString('latin1').slice(0, 30);
    expect(prefixOf('secrets')).to.match(/^k8s:enc:secretbox:v1:s:/);
    expect(prefixOf('deployments.apps')).to.match(/^k8s:enc:aescbc:v1:c:/);
    expect(prefixOf('widgets.example.com')).to.match(/^k8s:enc:aesgcm:v1:w:/);
    expect(prefixOf('configmaps')).to.match(/^k8s:enc:aesgcm:v1:core:/);
    expect(prefixOf('leases.coordination.orch.io')).to.equal('{"a":1}');
    expect(state.covers('leases.coordination.orch.io')).to.equal(false);
    // Not covered: plaintext is read, encrypted data is refused (kube's identity check).
    expect(() => state.transformerFor('leases.coordination.orch.io').fromStorage(Buffer.from('k8s:enc:aesgcm:v1:x:abc'), '/k')).to.throw('identity transformer tried to read encrypted data');
    const all = parseEncryptionConfig(doc([{ resources: ['*.*'], providers: [gcm(['all', K16])] }]), FILE);
    expect(all.covers('leases.coordination.orch.io')).to.equal(true);
    expect(all.covers('secrets')).to.equal(true);
  });

  describe('files and reload', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'enc-config-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('names an unreadable file', () => {
      expect(() => loadEncryptionConfig(path.join(dir, 'missing.yaml'))).to.throw(`error while parsing file: error while loading file: error reading encryption provider configuration file "${path.join(dir, 'missing.yaml')}": ENOENT`);
    });

    it('refuses automatic reload without a file', () => {
      expect(() => encryptionAtRestFromFlags({ encryptionProviderConfig: '', encryptionProviderConfigAutomaticReload: true, encryptionProviderConfigReloadIntervalMs: 1000 }, new MetricsRegistry(), { info: () => undefined, error: () => undefined } as never))
        .to.throw('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    });

    it('reload: a changed file replaces the configuration; a bad one is logged once, counted, and the previous stays', async () => {
      const file = path.join(dir, 'enc.json');
      writeFileSync(file, doc([{ resources: ['secrets'], providers: [gcm(['k1', K16])] }]));
      const errors: string[] = [];
      const metrics = new MetricsRegistry();
      const enc = new EncryptionAtRest({ file, automaticReload: false, reloadIntervalMs: 0, log: { info: () => undefined, error: (_m: string, meta: { error: string }) => errors.push(meta.error) } as never, metrics });
      const first = enc.current;
      expect(enc.reload()).to.equal(false); // unchanged
      writeFileSync(file, doc([{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{ name: 'k2', secret: NINE }] } }] }]));
      expect(enc.reload()).to.equal(false);
      expect(enc.reload()).to.equal(false);
      expect(enc.current).to.equal(first);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include('secret is not of the expected length, got 9');
      expect(errors[0]).to.not.include(NINE);
      writeFileSync(file, doc([{ resources: ['secrets'], providers: [gcm(['k2', K16]), gcm(['k1', K16])] }]));
      expect(enc.reload()).to.equal(true);
      expect(enc.current).to.not.equal(first);
      expect(enc.current.transformerFor('secrets').toStorage(Buffer.from('x'), '/k').toString('latin1')).to.match(/^k8s:enc:aesgcm:v1:k2:/);
      const text = await metrics.render();
      expect(text).to.match(/apiserver_encryption_config_controller_automatic_reloads_total\{status="failure"\} 1/);
      expect(text).to.match(/apiserver_encryption_config_controller_automatic_reloads_total\{status="success"\} 1/);
      enc.stop();
    });
  });
});
