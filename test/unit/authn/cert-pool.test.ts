import { expect } from 'chai';
import type { Context } from 'koa';
import type { TLSSocket } from 'node:tls';
import { CertificatePool, CertificatePoolHolder, peerChain } from '../../../lib/authn/cert-pool';
import { X509Authenticator } from '../../../lib/authn/x509';
import { authnRequestOf } from '../../../lib/authn/request';
import { Issued, issueCert, socketPresenting } from '../../helpers/x509-certs';

const HOUR = 3600_000;
const UNKNOWN = 'x509: certificate signed by unknown authority';
const EXPIRED = 'x509: certificate has expired or is not yet valid';
const USAGE = 'x509: certificate specifies an incompatible key usage';

const requestOn = (socket?: TLSSocket) => authnRequestOf({ req: { headers: {}, rawHeaders: [], socket } } as unknown as Context);

describe('client certificates', () => {
  let rootA: Issued;
  let rootB: Issued;
  let stranger: Issued;
  let pool: CertificatePool;

  before(function () {
    this.timeout(60_000);
    rootA = issueCert({ commonName: 'root-a', ca: true });
    rootB = issueCert({ commonName: 'root-b', ca: true });
    stranger = issueCert({ commonName: 'stranger', ca: true });
    pool = CertificatePool.fromPem(`${rootA.certPem}\n${rootB.certPem}`, '--client-ca-file /x');
  });

  const verify = (...chain: Issued[]) => pool.verify(chain.map((c) => c.cert), new Date());

  describe('CertificatePool.fromPem', () => {
    it('holds every certificate of a bundle', () => {
      expect(pool.certificates.map((c) => c.subject)).to.deep.equal(['CN=root-a', 'CN=root-b']);
      expect(pool.pem.match(/BEGIN CERTIFICATE/g)).to.have.length(2);
    });

    it('refuses a bundle without a certificate, or with one that does not parse, naming the source', () => {
      expect(() => CertificatePool.fromPem('', '--client-ca-file ca.pem')).to.throw('--client-ca-file ca.pem: no PEM certificate found');
      expect(() => CertificatePool.fromPem(rootA.keyPem, '--client-ca-file ca.pem')).to.throw('--client-ca-file ca.pem: no PEM certificate found');
      const broken = `${rootA.certPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`;
      expect(() => CertificatePool.fromPem(broken, '--client-ca-file ca.pem')).to.throw(/^--client-ca-file ca.pem: certificate 2 does not parse/);
    });
  });

  describe('verify', () => {
    it('accepts a certificate of either CA of the bundle', () => {
      expect(verify(issueCert({ commonName: 'a' }, rootA))).to.equal(undefined);
      expect(verify(issueCert({ commonName: 'b' }, rootB))).to.equal(undefined);
    });

    it('refuses a certificate of a CA not in the bundle, and a forged one (right issuer name, wrong key)', () => {
      expect(verify(issueCert({ commonName: 'c' }, stranger))).to.equal(UNKNOWN);
      expect(verify(issueCert({ commonName: 'forged' }, rootA, stranger))).to.equal(UNKNOWN);
    });

    it('refuses an expired or not yet valid certificate, and one of an expired CA', () => {
      expect(verify(issueCert({ commonName: 'old', notBefore: new Date(Date.now() - 48 * HOUR), notAfter: new Date(Date.now() - HOUR) }, rootA))).to.equal(EXPIRED);
      expect(verify(issueCert({ commonName: 'early', notBefore: new Date(Date.now() + HOUR) }, rootA))).to.equal(EXPIRED);
      const oldRoot = issueCert({ commonName: 'old-root', ca: true, notAfter: new Date(Date.now() - 1000) });
      const withOld = CertificatePool.fromPem(oldRoot.certPem, 'x');
      expect(withOld.verify([issueCert({ commonName: 'x' }, oldRoot).cert], new Date())).to.not.equal(undefined);
    });

    it('checks validity at the time asked', () => {
      const leaf = issueCert({ commonName: 'later', notBefore: new Date(Date.now() + HOUR), notAfter: new Date(Date.now() + 3 * HOUR) }, rootA);
      expect(pool.verify([leaf.cert], new Date(Date.now() + 2 * HOUR))).to.equal(undefined);
    });

    it('takes a leaf without extended key usage, or with clientAuth or any usage; refuses server-auth only', () => {
      expect(verify(issueCert({ commonName: 'no-eku', extKeyUsage: [] }, rootA))).to.equal(undefined);
      expect(verify(issueCert({ commonName: 'both', extKeyUsage: ['serverAuth', 'clientAuth'] }, rootA))).to.equal(undefined);
      expect(verify(issueCert({ commonName: 'any', extKeyUsage: ['any'] }, rootA))).to.equal(undefined);
      expect(verify(issueCert({ commonName: 'server', extKeyUsage: ['serverAuth'] }, rootA))).to.equal(USAGE);
      expect(verify(issueCert({ commonName: 'code', extKeyUsage: ['codeSigning'] }, rootA))).to.equal(USAGE);
    });

    describe('through intermediates the client sends', () => {
      let intermediate: Issued;
      before(function () {
        this.timeout(30_000);
        intermediate = issueCert({ commonName: 'intermediate', ca: true }, rootB);
      });

      it('accepts a leaf of an intermediate of a pool CA, sent with it', () => {
        const leaf = issueCert({ commonName: 'deep' }, intermediate);
        expect(verify(leaf, intermediate)).to.equal(undefined);
        expect(verify(leaf)).to.equal(UNKNOWN);
      });

      it('refuses an intermediate that is not a CA, or is expired', () => {
        const notCa = issueCert({ commonName: 'not-a-ca', extKeyUsage: [] }, rootB);
        expect(verify(issueCert({ commonName: 'x' }, notCa), notCa)).to.equal(UNKNOWN);
        const expired = issueCert({ commonName: 'expired-ca', ca: true, notBefore: new Date(Date.now() - 48 * HOUR), notAfter: new Date(Date.now() - HOUR) }, rootB);
        expect(verify(issueCert({ commonName: 'x' }, expired), expired)).to.equal(EXPIRED);
      });

      it('refuses a chain whose intermediate is limited to other usages (Go checks the whole chain)', () => {
        const serverOnly = issueCert({ commonName: 'server-only-ca', ca: true, extKeyUsage: ['serverAuth'] }, rootB);
        expect(verify(issueCert({ commonName: 'x' }, serverOnly), serverOnly)).to.equal(USAGE);
        const clientCa = issueCert({ commonName: 'client-ca', ca: true, extKeyUsage: ['clientAuth'] }, rootB);
        expect(verify(issueCert({ commonName: 'x' }, clientCa), clientCa)).to.equal(undefined);
      });

      it('refuses a leaf of a pool root limited to other usages', () => {
        const serverRoot = issueCert({ commonName: 'server-root', ca: true, extKeyUsage: ['serverAuth'] });
        const p = CertificatePool.fromPem(serverRoot.certPem, 'x');
        expect(p.verify([issueCert({ commonName: 'x' }, serverRoot).cert], new Date())).to.equal(USAGE);
      });
    });

    it('accepts a certificate that is itself in the pool', () => {
      const self = issueCert({ commonName: 'self' });
      expect(CertificatePool.fromPem(self.certPem, 'x').verify([self.cert], new Date())).to.equal(undefined);
    });
  });

  it('peerChain reads the leaf and the intermediates a socket presents, leaf first', () => {
    const intermediate = issueCert({ commonName: 'i', ca: true }, rootA);
    const leaf = issueCert({ commonName: 'l' }, intermediate);
    expect(peerChain(socketPresenting([leaf, intermediate])).map((c) => c.subject)).to.deep.equal(['CN=l', 'CN=i']);
    expect(peerChain(socketPresenting([]))).to.deep.equal([]);
  });

  describe('X509Authenticator', () => {
    it('names the user by CN, a group per O, in order', () => {
      const leaf = issueCert({ commonName: 'jane', organizations: ['dev', 'ops', 'system:masters'] }, rootB);
      expect(new X509Authenticator(pool).authenticate(requestOn(socketPresenting([leaf])))).to.deep.equal({
        kind: 'user', user: { name: 'jane', groups: ['dev', 'ops', 'system:masters'] },
      });
      const plain = issueCert({ commonName: 'joe' }, rootA);
      expect(new X509Authenticator(pool).authenticate(requestOn(socketPresenting([plain])))).to.deep.equal({ kind: 'user', user: { name: 'joe', groups: [] } });
    });

    it('is not mine without TLS, without a certificate, or for a valid certificate without CN', () => {
      const a = new X509Authenticator(pool);
      expect(a.authenticate(requestOn(undefined))).to.deep.equal({ kind: 'none' });
      expect(a.authenticate(requestOn(socketPresenting([])))).to.deep.equal({ kind: 'none' });
      expect(a.authenticate(requestOn(socketPresenting([issueCert({ organizations: ['dev'] }, rootA)])))).to.deep.equal({ kind: 'none' });
    });

    it('answers invalid, with the reason, for a certificate that does not verify (even without CN)', () => {
      const a = new X509Authenticator(pool);
      expect(a.authenticate(requestOn(socketPresenting([issueCert({ commonName: 'x' }, stranger)])))).to.deep.equal({ kind: 'invalid', reason: `client certificate: ${UNKNOWN}` });
      expect(a.authenticate(requestOn(socketPresenting([issueCert({ organizations: ['o'] }, stranger)])))).to.include({ kind: 'invalid' });
      expect(a.authenticate(requestOn(socketPresenting([issueCert({ commonName: 's', extKeyUsage: ['serverAuth'] }, rootA)])))).to.deep.equal({ kind: 'invalid', reason: `client certificate: ${USAGE}` });
    });

    it('verifies a connection\'s certificate once, not per request', () => {
      const a = new X509Authenticator(pool);
      const socket = socketPresenting([issueCert({ commonName: 'once' }, rootA)]);
      const first = a.authenticate(requestOn(socket));
      const asked = socket.asked;
      expect(a.authenticate(requestOn(socket))).to.deep.equal(first);
      expect(socket.asked).to.equal(asked);
    });

    describe('a chain met before, on a new connection', () => {
      let jane: Issued;
      let intermediate: Issued;
      let dave: Issued;
      before(() => {
        jane = issueCert({ commonName: 'jane', organizations: ['dev'] }, rootB);
        intermediate = issueCert({ commonName: 'team-ca', ca: true }, rootA);
        dave = issueCert({ commonName: 'dave' }, intermediate);
      });

      /** `pool`'s certificates, with its verifications counted. */
      const counted = () => {
        const p = CertificatePool.fromPem(pool.pem, 'x');
        const verify = p.verify.bind(p);
        const calls = { n: 0 };
        p.verify = (chain, now) => { calls.n++; return verify(chain, now); };
        return { p, calls };
      };

      it('is answered without verifying it again', () => {
        for (const [chain, asks] of [[[jane], 1], [[dave, intermediate], 2]] as [Issued[], number][]) {
          const { p, calls } = counted();
          const a = new X509Authenticator(p);
          const user = a.authenticate(requestOn(socketPresenting(chain)));
          expect(user).to.have.property('kind', 'user');
          const verified = calls.n;
          const again = socketPresenting(chain);
          expect(a.authenticate(requestOn(again))).to.deep.equal(user);
          expect(calls.n).to.equal(verified);
          // A leaf that verifies by itself is known by its own fingerprint; one that needs its intermediate, by the chain's.
          expect(again.asked).to.equal(asks);
        }
      });

      it('is told apart by every certificate sent: the same leaf without its intermediate does not verify', () => {
        const a = new X509Authenticator(pool);
        expect(a.authenticate(requestOn(socketPresenting([dave, intermediate])))).to.have.property('kind', 'user');
        expect(a.authenticate(requestOn(socketPresenting([dave])))).to.deep.equal({ kind: 'invalid', reason: `client certificate: ${UNKNOWN}` });
      });

      it('is verified again against a replaced pool (a reloaded --client-ca-file)', () => {
        const holder = new CertificatePoolHolder(pool);
        const a = new X509Authenticator(holder);
        expect(a.authenticate(requestOn(socketPresenting([jane])))).to.have.property('kind', 'user');
        holder.current = CertificatePool.fromPem(rootA.certPem, 'x');
        expect(a.authenticate(requestOn(socketPresenting([jane])))).to.deep.equal({ kind: 'invalid', reason: `client certificate: ${UNKNOWN}` });
      });

      it('is verified again when refused before (a refusal is not remembered across connections)', () => {
        const a = new X509Authenticator(pool);
        const stray = issueCert({ commonName: 'stray' }, stranger);
        for (let i = 0; i < 2; i++) {
          const socket = socketPresenting([stray]);
          expect(a.authenticate(requestOn(socket))).to.have.property('kind', 'invalid');
          expect(socket.asked).to.equal(2); // the leaf, then the chain
        }
      });

      it('is verified again once a certificate of it has expired', () => {
        const a = new X509Authenticator(pool);
        const brief = issueCert({ commonName: 'brief', notAfter: new Date(Date.now() + 60_000) }, rootA);
        expect(a.authenticate(requestOn(socketPresenting([brief])))).to.have.property('kind', 'user');
        const realNow = Date.now;
        Date.now = () => realNow() + 120_000;
        try {
          expect(a.authenticate(requestOn(socketPresenting([brief])))).to.deep.equal({ kind: 'invalid', reason: `client certificate: ${EXPIRED}` });
        } finally {
          Date.now = realNow;
        }
      });
    });
  });
});
