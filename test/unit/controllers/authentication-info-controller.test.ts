import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { authenticationData } from '../../../lib/controllers/authentication-info-controller';
import { createTestCa, issueTestCert } from '../../helpers/test-ca';

const pemOf = (pem: string) => new X509Certificate(pem).toString();
const certsIn = (bundle: string) => (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b).fingerprint256);
const fp = (pem: string) => new X509Certificate(pem).fingerprint256;

describe('authenticationData (extension-apiserver-authentication)', () => {
  const clientCa = createTestCa('client-ca');
  const proxyCa = createTestCa('proxy-ca');
  const otherCa = createTestCa('other-ca');
  const now = new Date();
  const requestHeader = {
    caPem: proxyCa.certPem, usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-'], allowedNames: ['front-proxy-client'],
  };

  it('without a request-header CA holds only client-ca-file', () => {
    expect(authenticationData(undefined, { clientCaPem: clientCa.certPem }, now)).to.deep.equal({ 'client-ca-file': pemOf(clientCa.certPem) });
  });

  it("with a request-header CA holds Kubernetes' keys, lists as JSON arrays", () => {
    expect(authenticationData(undefined, { clientCaPem: clientCa.certPem, requestHeader }, now)).to.deep.equal({
      'client-ca-file': pemOf(clientCa.certPem),
      'requestheader-client-ca-file': pemOf(proxyCa.certPem),
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-uid-headers': '[]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-allowed-names': '["front-proxy-client"]',
    });
  });

  it('empty lists are written as []', () => {
    const data = authenticationData(undefined, { clientCaPem: clientCa.certPem, requestHeader: { ...requestHeader, groupHeaders: [], allowedNames: [] } }, now);
    expect(data['requestheader-group-headers']).to.equal('[]');
    expect(data['requestheader-allowed-names']).to.equal('[]');
  });

  it("merges with what is there: others' entries first, ours added once, unknown keys dropped", () => {
    const existing = {
      'client-ca-file': otherCa.certPem + clientCa.certPem,
      'requestheader-username-headers': '["X-Other-User","X-Remote-User"]',
      'requestheader-allowed-names': '["other-proxy"]',
      'someone-elses-key': 'x',
    };
    const data = authenticationData(existing, { clientCaPem: clientCa.certPem, requestHeader }, now);
    expect(certsIn(data['client-ca-file'])).to.deep.equal([fp(otherCa.certPem), fp(clientCa.certPem)]);
    expect(data['requestheader-username-headers']).to.equal('["X-Other-User","X-Remote-User"]');
    expect(data['requestheader-allowed-names']).to.equal('["other-proxy","front-proxy-client"]');
    expect(data).to.not.have.property('someone-elses-key');
  });

  it('is stable: what it writes, merged again, is unchanged', () => {
    const once = authenticationData(undefined, { clientCaPem: clientCa.certPem, requestHeader }, now);
    expect(authenticationData(once, { clientCaPem: clientCa.certPem, requestHeader }, now)).to.deep.equal(once);
  });

  it('keeps the request-header keys another server published even when this one has no proxy CA', () => {
    const theirs = authenticationData(undefined, { clientCaPem: otherCa.certPem, requestHeader }, now);
    const data = authenticationData(theirs, { clientCaPem: clientCa.certPem }, now);
    expect(data['requestheader-username-headers']).to.equal('["X-Remote-User"]');
    expect(certsIn(data['client-ca-file'])).to.deep.equal([fp(otherCa.certPem), fp(clientCa.certPem)]);
  });

  it('repairs damage: a value that is not a JSON list of strings, a bundle with garbage, a CA expired long ago', () => {
    const expiredCa = issueTestCert(otherCa, { commonName: 'old', notBefore: new Date(now.getTime() - 7200_000), notAfter: new Date(now.getTime() - 600_000) });
    const warnings: string[] = [];
    const data = authenticationData({
      'client-ca-file': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' + expiredCa.certPem,
      'requestheader-group-headers': '{"not":"a list"}',
      'requestheader-username-headers': '[1,2]',
    }, { clientCaPem: clientCa.certPem, requestHeader }, now, (m) => warnings.push(m));
    expect(certsIn(data['client-ca-file'])).to.deep.equal([fp(clientCa.certPem)]);
    expect(data['requestheader-group-headers']).to.equal('["X-Remote-Group"]');
    expect(data['requestheader-username-headers']).to.equal('["X-Remote-User"]');
    expect(warnings).to.have.length(3);
  });
});
