/**
 * parseRequestHead (lib/http1/request-head.ts) with rows as data: heads Node's http.Server
 * (llhttp) serves, heads it refuses (each answered 400 or 405 here, with the rule's code), and
 * heads it serves that RFC 9112/9110 forbid (refused here on purpose, with their own codes).
 */
import { expect } from 'chai';
import { CHUNKED, parseRequestHead, RequestHead } from '../../../lib/http1/request-head';
import { ProtocolError } from '../../../lib/http1/protocol-error';

const H = 'Host: x';
const get = (...fields: string[]) => ['GET / HTTP/1.1', ...fields].join('\r\n');
const post = (...fields: string[]) => ['POST /p HTTP/1.1', H, ...fields].join('\r\n');

function refusal(head: string): [number, string] | undefined {
  try {
    parseRequestHead(head);
    return undefined;
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    return [err.status, err.code];
  }
}

describe('parseRequestHead (lib/http1/request-head)', () => {
  describe('takes what llhttp takes and the RFC allows', () => {
    const rows: Array<[string, Partial<RequestHead>]> = [
      [get(H), { method: 'GET', url: '/', minor: 1, bodyLength: 0, keepAlive: true, expectContinue: false }],
      ['GET / HTTP/1.0', { minor: 0, keepAlive: false }],
      ['OPTIONS * HTTP/1.1\r\nHost: x', { method: 'OPTIONS', url: '*' }],
      ['GET http://x:80/a?b HTTP/1.1\r\nHost: x', { url: 'http://x:80/a?b' }],
      ['GET http://[::1]:6443 HTTP/1.1\r\nHost: x', { url: 'http://[::1]:6443' }],
      ['GET /a?b?c#d"<>\\^`{|}%zz HTTP/1.1\r\nHost: x', { url: '/a?b?c#d"<>\\^`{|}%zz' }],
      ['SOURCE / HTTP/1.1\r\nHost: x', { method: 'SOURCE' }],
      ['QUERY / HTTP/1.1\r\nHost: x', { method: 'QUERY' }],
      [post('Content-Length:  5 '), { bodyLength: 5 }],
      [post('Content-Length:\t0005'), { bodyLength: 5 }],
      [post('Transfer-Encoding: chunked'), { bodyLength: CHUNKED }],
      [post('Transfer-Encoding: CHUNKED '), { bodyLength: CHUNKED }],
      [post('Transfer-Encoding: , chunked'), { bodyLength: CHUNKED }],
      [post('Expect: 100-Continue', 'Content-Length: 1'), { expectContinue: true }],
      [post('Expect: 100-continue', 'Expect: 100-continue'), { expectContinue: true }],
      ['POST / HTTP/1.0\r\nExpect: something', { expectContinue: false }],
      [get('Host:'), { headers: { host: '' } }],
      [get('Host: example.com:8080'), {}],
      [get('Host: [::1]:6443'), {}],
      [get('Host: my_host%41.example'), {}],
    ];
    rows.forEach(([head, want]) => it(JSON.stringify(head), () => {
      expect(parseRequestHead(head)).to.deep.include(want);
    }));
  });

  it('gives headers in Node\'s shapes: lower-case names, trimmed values, repeats joined or kept once', () => {
    const head = parseRequestHead(get(H, 'X-A:  one \t', 'x-a: two', 'Cookie: a=1', 'cookie: b=2', 'Set-Cookie: s1', 'Set-Cookie: s2',
      'Authorization: first', 'Authorization: second', 'X-Obs: caf\xe9'));
    expect(head.headers).to.deep.equal({ host: 'x', 'x-a': 'one, two', cookie: 'a=1; b=2', 'set-cookie': ['s1', 's2'], authorization: 'first', 'x-obs': 'caf\xe9' });
    expect(head.rawHeaders.slice(0, 6)).to.deep.equal(['Host', 'x', 'X-A', 'one', 'x-a', 'two']);
  });

  it('takes a field named like a property of every object as any other field, as Node does', () => {
    expect(parseRequestHead(get(H, 'Constructor: c', 'constructor: d')).headers).to.deep.equal({ host: 'x', constructor: 'c, d' });
  });

  describe('keeps the connection as the request asks (close as RFC 9110 lists it; keep-alive only where llhttp sees it; never after an upgrade request)', () => {
    const rows: Array<[string, boolean]> = [
      [get(H, 'Connection: close'), false],
      [get(H, 'Connection: Close'), false],
      [get(H, 'Connection: foo, close'), false],
      [get(H, 'Connection: ,close,'), false],
      [get(H, 'Connection: keep-alive', 'Connection: close'), false],
      [get(H, 'Proxy-Connection: close'), false],
      [get(H, 'Connection: close\t'), false],
      [get(H, 'Connection: closed'), true],
      [get(H, 'Connection: x close'), true],
      [get(H, 'Connection: Upgrade', 'Upgrade: h2c'), false],
      [get(H, 'Connection: upgrade'), true],
      [get(H, 'Upgrade: websocket'), true],
      ['GET / HTTP/1.0\r\nConnection: keep-alive', true],
      ['GET / HTTP/1.0\r\nConnection: Keep-Alive', true],
      ['GET / HTTP/1.0\r\nConnection: foo,\tkeep-alive ', true],
      ['GET / HTTP/1.0\r\nProxy-Connection: keep-alive', true],
      ['GET / HTTP/1.0\r\nConnection: keep-alive\t', false],
      ['GET / HTTP/1.0\r\nConnection: keep-alive, close', false],
      ['GET / HTTP/1.0', false],
    ];
    rows.forEach(([head, keep]) => it(`${JSON.stringify(head)}: ${keep ? 'kept' : 'closed'}`, () => {
      expect(parseRequestHead(head).keepAlive).to.equal(keep);
    }));
  });

  describe('refuses what llhttp refuses', () => {
    const rows: Array<[string, number, string]> = [
      ['get / HTTP/1.1\r\nHost: x', 400, 'method'],
      ['FOO / HTTP/1.1\r\nHost: x', 400, 'method'],
      ['PRI * HTTP/2.0', 400, 'method'],
      ['DESCRIBE / HTTP/1.1\r\nHost: x', 400, 'method'],
      ['GET\t/ HTTP/1.1\r\nHost: x', 400, 'method'],
      ['GET\r\nHost: x', 400, 'request-line'],
      ['CONNECT x:443 HTTP/1.1\r\nHost: x', 405, 'connect'],
      ['GET /\xe9 HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET /a\x01 HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET /a\x7f HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET /a\tb HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET x:80 HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET a HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET ?a HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET http://a#b HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET http:/a HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET h2c://a HTTP/1.1\r\nHost: x', 400, 'target'],
      ['GET / HTTP/1.2\r\nHost: x', 400, 'version'],
      ['GET / HTTP/01.1\r\nHost: x', 400, 'version'],
      ['GET / http/1.1\r\nHost: x', 400, 'version'],
      ['GET / HTTP/1.1 \r\nHost: x', 400, 'version'],
      ['GET / HTTP/1.1\nHost: x', 400, 'version'],
      [get(H, 'X : a'), 400, 'field-name'],
      [get(H, 'X\t: a'), 400, 'field-name'],
      [get(H, ': a'), 400, 'field-name'],
      [get(' Host: x'), 400, 'field-name'],
      [get(H, 'X: a', ' folded'), 400, 'field-name'],
      [get(H, 'X: a', '\tfolded'), 400, 'field-name'],
      [get(H, 'X Y: a'), 400, 'field-name'],
      [get(H, 'X\x00: a'), 400, 'field-name'],
      [get(H, 'X\xe9: a'), 400, 'field-name'],
      [get(H, 'X\nY: a'), 400, 'field-name'],
      [get(H, 'X: a\x0bb'), 400, 'field-value'],
      [get(H, 'X: a\x0cb'), 400, 'field-value'],
      [get(H, 'X: a\x7fb'), 400, 'field-value'],
      [get(H, 'X: a\x00b'), 400, 'field-value'],
      [get(H, 'X: a\rY: b'), 400, 'field-value'],
      [get(H, 'X: a\nY: b'), 400, 'field-value'],
      [get(), 400, 'host-missing'],
      [post('Content-Length: 2, 2'), 400, 'content-length'],
      [post('Content-Length: +2'), 400, 'content-length'],
      [post('Content-Length: -1'), 400, 'content-length'],
      [post('Content-Length: '), 400, 'content-length'],
      [post('Content-Length: 0x2'), 400, 'content-length'],
      [post('Content-Length: 2\t'), 400, 'content-length'],
      [post('Content-Length: 2 2'), 400, 'content-length'],
      [post('Content-Length: 2', 'content-length: 2'), 400, 'content-length-repeated'],
      [post('Content-Length: 2', 'Transfer-Encoding: chunked'), 400, 'transfer-encoding-with-length'],
      [post('Transfer-Encoding: chunked', 'Content-Length: 2'), 400, 'transfer-encoding-with-length'],
      [post('Transfer-Encoding: chunked, gzip'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: chunked, chunked'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: chunked\t'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: chunked,'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: chunked;q=1'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: xchunked'), 400, 'transfer-coding'],
      [post('Transfer-Encoding: identity'), 400, 'transfer-coding'],
    ];
    rows.forEach(([head, status, code]) => it(`${JSON.stringify(head)}: ${status} ${code}`, () => {
      expect(refusal(head)).to.deep.equal([status, code]);
    }));
  });

  describe('refuses, stricter than llhttp, what RFC 9112/9110 forbid', () => {
    const rows: Array<[string, string, string]> = [
      ['GET  / HTTP/1.1\r\nHost: x', 'request-line-spaces', 'RFC 9112 3: single spaces'],
      ['GET /  HTTP/1.1\r\nHost: x', 'request-line-spaces', 'RFC 9112 3'],
      ['GET /', 'version-not-served', 'HTTP/0.9, no version (RFC 9112 3)'],
      ['GET / HTTP/0.9\r\nHost: x', 'version-not-served', 'RFC 9112 2.3'],
      ['GET / HTTP/2.0\r\nHost: x', 'version-not-served', 'RFC 9112 2.3'],
      ['GET * HTTP/1.1\r\nHost: x', 'asterisk-form', 'RFC 9112 3.2.4: OPTIONS only'],
      ['OPTIONS *x HTTP/1.1\r\nHost: x', 'asterisk-form', 'RFC 9112 3.2.4: "*" alone'],
      ['GET http:///a HTTP/1.1\r\nHost: x', 'target-empty-host', 'RFC 9110 4.2.1'],
      ['GET http://u@:80/ HTTP/1.1\r\nHost: x', 'target-empty-host', 'RFC 9110 4.2.1'],
      [get(H, 'Host: y'), 'host-repeated', 'RFC 9112 3.2'],
      ['GET / HTTP/1.0\r\nHost: x\r\nhost: x', 'host-repeated', 'RFC 9112 3.2: any request'],
      [get('Host: a b'), 'host-invalid', 'RFC 9112 3.2'],
      [get('Host: a/b'), 'host-invalid', 'RFC 3986 3.2.2'],
      [get('Host: \xe9'), 'host-invalid', 'RFC 3986 3.2.2'],
      [get('Host: x:port'), 'host-invalid', 'RFC 3986 3.2.3'],
      [post('Transfer-Encoding: gzip, chunked'), 'transfer-coding', 'RFC 9112 6.1: not understood'],
      [post('Transfer-Encoding: gzip', 'Transfer-Encoding: chunked'), 'transfer-coding', 'RFC 9112 6.1'],
      [post('Transfer-Encoding: '), 'transfer-coding', 'RFC 9112 6.3: chunked not last'],
      ['POST / HTTP/1.0\r\nTransfer-Encoding: chunked', 'transfer-encoding-http10', 'RFC 9112 6.1'],
      [post('Content-Length: 9007199254740993'), 'content-length-overflow', 'RFC 9110 8.6'],
    ];
    rows.forEach(([head, code, why]) => it(`${JSON.stringify(head)}: 400 ${code} (${why})`, () => {
      expect(refusal(head)).to.deep.equal([400, code]);
    }));
  });

  it('answers an expectation other than 100-continue in HTTP/1.1 with 417', () => {
    expect(refusal(post('Expect: foo'))).to.deep.equal([417, 'expectation']);
    expect(refusal(post('Expect: 100-continue, foo'))).to.deep.equal([417, 'expectation']);
  });
});
