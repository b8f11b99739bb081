/**
 * An HTTP/2 request's header list as lib/http2/request-fields.ts checks it (RFC 9113 8.2,
 * 8.3): each row is a header list a client could send, and whether it is a request or malformed.
 * Malformed lists never reach the application (the session resets their streams).
 */
import { expect } from 'chai';
import { requestHead, trailersValid } from '../../../lib/http2/request-fields';

const base: Array<[string, string]> = [[':method', 'GET'], [':scheme', 'https'], [':path', '/api/v1/namespaces'], [':authority', 'localhost:6443']];
const flat = (fields: Array<[string, string]>) => fields.flat();
const withField = (name: string, value: string) => flat([...base, [name, value]]);

describe('HTTP/2 request fields (RFC 9113 8.2, 8.3)', () => {
  it('takes a well-formed request: pseudo-headers, joined repeats, cookies with "; ", content-length', () => {
    const head = requestHead(flat([...base, ['accept', 'a'], ['accept', 'b'], ['cookie', 'x=1'], ['cookie', 'y=2'], ['content-length', '12'], ['te', 'trailers']]));
    expect(head).to.be.an('object');
    if (typeof head === 'string') return;
    expect(head.headers[':path']).to.equal('/api/v1/namespaces');
    expect(head.headers.accept).to.equal('a, b');
    expect(head.headers.cookie).to.equal('x=1; y=2');
    expect(head.contentLength).to.equal(12);
    expect(head.connect).to.equal(false);
  });

  it('takes `OPTIONS *`, a host equal to :authority, obs-text and inner spaces in values, and an empty value', () => {
    expect(requestHead(flat([[':method', 'OPTIONS'], [':scheme', 'https'], [':path', '*']]))).to.be.an('object');
    expect(requestHead(withField('host', 'LOCALHOST:6443'))).to.be.an('object');
    expect(requestHead(withField('user-agent', 'kubectl/v1.32 (linux) \xe9'))).to.be.an('object');
    expect(requestHead(withField('x-empty', ''))).to.be.an('object');
  });

  const malformed: Array<[string, string[]]> = [
    ['a CR LF pair smuggling a second field into a value', withField('audit-id', 'x\r\nset-cookie: a=1')],
    ['a bare LF in a value', withField('x-a', 'a\nb')],
    ['a NUL in a value', withField('x-a', 'a\0b')],
    ['another control character in a value', withField('x-a', 'a\x01b')],
    ['DEL in a value', withField('x-a', 'a\x7fb')],
    ['a leading space in a value', withField('x-a', ' a')],
    ['a trailing tab in a value', withField('x-a', 'a\t')],
    ['an upper-case name', withField('X-A', 'a')],
    ['a space in a name', withField('x a', 'a')],
    ['a colon inside a name', withField('x:a', 'a')],
    ['a non-token character in a name', withField('x(a)', 'a')],
    ['an empty name', withField('', 'a')],
    ['a connection-specific field', withField('connection', 'keep-alive')],
    ['transfer-encoding', withField('transfer-encoding', 'chunked')],
    ['upgrade', withField('upgrade', 'h2c')],
    ['te other than trailers', withField('te', 'gzip')],
    ['a content-length that is not a number', withField('content-length', '1a')],
    ['a negative content-length', withField('content-length', '-1')],
    ['content-length twice', flat([...base, ['content-length', '1'], ['content-length', '1']])],
    ['a host that differs from :authority', withField('host', 'example.com')],
    ['an unknown pseudo-header', flat([...base, [':protocol', 'websocket']])],
    ['a response pseudo-header', flat([...base, [':status', '200']])],
    ['a pseudo-header after a regular field', flat([[':method', 'GET'], [':scheme', 'https'], ['accept', 'a'], [':path', '/']])],
    [':method twice', flat([...base, [':method', 'GET']])],
    [':path missing', flat([[':method', 'GET'], [':scheme', 'https']])],
    [':scheme missing', flat([[':method', 'GET'], [':path', '/']])],
    [':method missing', flat([[':scheme', 'https'], [':path', '/']])],
    ['an empty :path', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '']])],
    ['a :path not starting with /', flat([[':method', 'GET'], [':scheme', 'https'], [':path', 'api/v1']])],
    ['`*` for a method other than OPTIONS', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '*']])],
    ['a :path with a space', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '/a b']])],
    ['a :path with a byte over 0x7e', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '/\xe9']])],
    ['a :method that is not a token', flat([[':method', 'G T'], [':scheme', 'https'], [':path', '/']])],
    ['a :scheme that is not a scheme', flat([[':method', 'GET'], [':scheme', '1http'], [':path', '/']])],
    ['an :authority with userinfo', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '/'], [':authority', 'user@localhost']])],
    ['an :authority with a space', flat([[':method', 'GET'], [':scheme', 'https'], [':path', '/'], [':authority', 'local host']])],
    ['CONNECT with a :path', flat([[':method', 'CONNECT'], [':authority', 'example.com:443'], [':path', '/']])],
    ['CONNECT with a :scheme', flat([[':method', 'CONNECT'], [':authority', 'example.com:443'], [':scheme', 'https']])],
    ['CONNECT without an :authority', flat([[':method', 'CONNECT']])],
  ];
  for (const [what, fields] of malformed) {
    it(`refuses ${what}`, () => {
      expect(requestHead(fields)).to.be.a('string');
    });
  }

  it('knows a well-formed CONNECT (answered 405 by the session, never handed on)', () => {
    const head = requestHead(flat([[':method', 'CONNECT'], [':authority', 'example.com:443']]));
    expect(head).to.be.an('object');
    expect(typeof head !== 'string' && head.connect).to.equal(true);
  });

  it('trailers: regular, valid fields only', () => {
    expect(trailersValid(['x-checksum', 'abc'])).to.equal(true);
    expect(trailersValid([':path', '/'])).to.equal(false);
    expect(trailersValid(['x-a', 'a\r\nb'])).to.equal(false);
    expect(trailersValid(['Upper', 'a'])).to.equal(false);
    expect(trailersValid(['connection', 'close'])).to.equal(false);
  });
});
