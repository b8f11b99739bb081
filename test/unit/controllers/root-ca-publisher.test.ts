import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { onlyWrittenBy, rootCaBundle } from '../../../lib/controllers/root-ca-publisher';
import { createTestCa } from '../../helpers/test-ca';

/** A self-signed CA whose validity ended a day ago. */
function expiredCa(name: string): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const priv = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(priv.n, priv.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 10 * 86_400_000);
  cert.validity.notAfter = new Date(Date.now() - 86_400_000);
  cert.setSubject([{ name: 'commonName', value: name }]);
  cert.setIssuer([{ name: 'commonName', value: name }]);
  cert.setExtensions([{ name: 'basicConstraints', cA: true }]);
  cert.sign(priv, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

const certs = (bundle: string) => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

describe('rootCaBundle (root CA publisher)', () => {
  const a = createTestCa('replica-a').certPem;
  const b = createTestCa('replica-b').certPem;
  const old = expiredCa('rotated-away');
  const now = new Date();

  it('content someone else wrote becomes ours verbatim, whatever it holds', () => {
    for (const current of [undefined, '', 'garbage', b, `${b}${a}`, a]) expect(rootCaBundle(current, false, a, now)).to.equal(a);
  });

  it('publisher-written content with our certificate and nothing expired is kept as it is', () => {
    expect(rootCaBundle(a, true, a, now)).to.equal(a);
    const both = `${b}\n${a}`;
    expect(rootCaBundle(both, true, a, now)).to.equal(both);
  });

  it("publisher-written content without ours gets ours added; the other replica then keeps it: two writes settle", () => {
    const byB = rootCaBundle(a, true, b, now);
    expect(certs(byB).map((c) => c.trim())).to.deep.equal([a.trim(), b.trim()]);
    expect(rootCaBundle(byB, true, a, now)).to.equal(byB);
    expect(rootCaBundle(byB, true, b, now)).to.equal(byB);
  });

  it('publisher-written content that does not parse becomes ours', () => {
    expect(rootCaBundle('garbage', true, a, now)).to.equal(a);
    expect(rootCaBundle(`${b}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, true, a, now)).to.equal(a);
  });

  it("others' expired certificates are dropped; an expired CA of ours is not added, so replicas still agree", () => {
    const cleaned = rootCaBundle(`${old}${b}`, true, b, now);
    expect(certs(cleaned).map((c) => c.trim())).to.deep.equal([b.trim()]);
    // A replica whose own CA expired keeps a bundle of the others' valid ones, and they keep it too.
    expect(rootCaBundle(b, true, old, now)).to.equal(b);
    expect(rootCaBundle(b, true, b, now)).to.equal(b);
    // Alone with an expired CA, it still publishes it (as Kubernetes would).
    expect(rootCaBundle(old, true, old, now)).to.equal(old);
    expect(rootCaBundle('garbage', false, old, now)).to.equal(old);
  });
});

describe('onlyWrittenBy', () => {
  const entry = (manager: string, fields: object) => ({ manager, operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fields });
  const cm = (managedFields?: unknown[]) => ({ metadata: { name: 'x', managedFields } });

  it('is true only when every owner of data.<key> is the manager', () => {
    expect(onlyWrittenBy(cm([entry('m', { 'f:data': { '.': {}, 'f:ca.crt': {} } })]), 'ca.crt', 'm')).to.equal(true);
    expect(onlyWrittenBy(cm([entry('m', { 'f:data': { 'f:ca.crt': {} } }), entry('kubectl', { 'f:data': { 'f:other': {} } })]), 'ca.crt', 'm')).to.equal(true);
    expect(onlyWrittenBy(cm([entry('m', { 'f:data': {} }), entry('kubectl-edit', { 'f:data': { 'f:ca.crt': {} } })]), 'ca.crt', 'm')).to.equal(false);
    expect(onlyWrittenBy(cm([entry('m', { 'f:metadata': {} })]), 'ca.crt', 'm')).to.equal(false);
    expect(onlyWrittenBy(cm(), 'ca.crt', 'm')).to.equal(false);
  });
});
