/**
 * The words a client sees when the server cannot reach a kubelet: Go's net and TLS texts, as
 * kube-apiserver would answer them, and never OpenSSL's own (a plain-HTTP kubelet, such as a
 * hollow kubelet, answered a TLS handshake).
 */
import { expect } from 'chai';
import { dialErrorText } from '../../../lib/kubelet/errors';

const err = (code: string, message = ''): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

describe('kubelet dial errors in Go\'s words', () => {
  const rows: Array<[NodeJS.ErrnoException, string]> = [
    [err('ECONNREFUSED'), 'dial tcp 127.0.0.1:10250: connect: connection refused'],
    [err('ENOTFOUND'), 'dial tcp: lookup 127.0.0.1: no such host'],
    [err('ETIMEDOUT'), 'dial tcp 127.0.0.1:10250: i/o timeout'],
    [err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls: failed to verify certificate: x509: certificate signed by unknown authority'],
    [err('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), 'tls: first record does not look like a TLS handshake'],
    // Node reports the same failure as EPROTO with OpenSSL's text when it happens on write.
    [err('EPROTO', 'write EPROTO 801C0A9B707F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:'),
      'tls: first record does not look like a TLS handshake'],
    [err('EPROTO', 'error:0A000412:SSL routines::sslv3 alert bad certificate:SSL alert number 42'), 'remote error: tls: bad certificate'],
    [err('EPROTO', 'error:0A00045C:SSL routines::tlsv13 alert certificate required:SSL alert number 116'), 'remote error: tls: certificate required'],
  ];
  for (const [e, text] of rows) {
    it(`${e.code} ${e.message.slice(0, 40)} -> ${text}`, () => {
      expect(dialErrorText(e, '127.0.0.1', 10250)).to.equal(text);
    });
  }
});
