/**
 * Request byte streams for the HTTP/1.1 differential suite: one to three pipelined requests,
 * each valid but for zero, one or a few "faults" at chosen sites, so that later requests are
 * reached and every rule is met: methods (known, unknown, lower-case, CONNECT), targets (origin,
 * absolute, "*", authority, non-ASCII, controls, escapes), versions, field lines with every
 * separator and whitespace variant (SP, HTAB, CR, LF, NUL, VT, FF around the colon and the value,
 * obs-fold), duplicated and conflicting Content-Length and Transfer-Encoding, chunk-size lines
 * with extensions (quoted, unquoted, BWS, bare CR or LF), trailers; then cut into TCP writes.
 */
import { METHODS } from 'node:http';
import fc from 'fast-check';

const one = <T>(...values: T[]) => fc.constantFrom(...values);

/** Where a request can go wrong: each site has values that are fine and values that are not. */
const SITES = {
  method: { ok: one('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', ...METHODS.filter((m) => m !== 'CONNECT')),
    bad: one('CONNECT', 'FOO', 'get', 'Get', 'PRI', 'DESCRIBE', 'GET\t', '') },
  space: { ok: fc.constant(' '), bad: one('  ', '\t', ' \t') },
  target: {
    ok: one('/', '/healthz', '/api/v1/namespaces/default/configmaps?limit=1', '/a/b?c=d&e=f#frag', '/%41%zz%', '/"<>\\^`{|}', '//a',
      'http://x/a', 'https://example.com:6443/api?x=1', 'http://[::1]/', 'http://u@h/p', 'HTTP://X'),
    bad: fc.oneof(one('*', '*x', 'x:443', 'example.com:443', 'a', '?q', '#f', '', 'http:///a', 'h2c://a', 'http:/a', 'http://a#b', `/${'a'.repeat(20_000)}`),
      fc.tuple(one('/', '/a'), one('\xe9', '\x80', '\xff', '\x01', '\x7f', '\t', '\x0b', '\x0c', '\x00', '\r', '\n'), one('', 'b')).map((p) => p.join(''))),
  },
  version: { ok: fc.oneof({ weight: 6, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constant('HTTP/1.0') }),
    bad: one('HTTP/0.9', 'HTTP/1.2', 'HTTP/2.0', 'http/1.1', 'HTTP/1.1 ', 'HTTP/01.1', 'HTTP/1', '', 'HTTP/1.10') },
  lineEnd: { ok: fc.constant('\r\n'), bad: one('\n', '\r', '\r\r\n') },
  host: { ok: one('x', 'example.com:6443', '[::1]:6443', '10.0.0.1', ''), bad: one('a b', 'caf\xe9', 'a/b', 'x:port', 'a@b', '[::1', 'missing', 'twice') },
  fieldSpace: {
    ok: fc.tuple(fc.constant(''), one(' ', ' ', ' ', '', '\t', '  '), one('', '', '', '', '', ' ', '\t')),
    bad: fc.tuple(one('', ' ', '\t', '\r', '\n', '\x00', '\x0b', '\x0c'), one(' ', '\x0b', '\x0c', '\x00', '\r', '\n'), one('', '\x0b', '\x0c', '\x00', ' \t')),
  },
  fold: { ok: fc.constant(''), bad: one('\r\n folded', '\r\n\tfolded') },
  name: { ok: one('X-A', 'x-a', 'Cookie', 'Set-Cookie', 'Authorization', 'Content-Type', 'Upgrade', 'Accept', 'Constructor', '__proto__'), bad: one('', 'X Y', 'X\x00', 'X(', 'X\xe9', 'X\tY', 'X\x7f', ' X') },
  value: { ok: one('v', 'a b', 'x\ty', 'caf\xe9', ''), bad: one('a\x0bb', 'a\x00b', 'a\x7fb', 'a\rb', 'a\nb', 'a\x0cb', `${'a'.repeat(20_000)}`) },
  connection: { ok: one('close', 'keep-alive', 'Close', 'foo, close', 'upgrade', 'Keep-Alive', ',close,'), bad: one('close\t', 'keep-alive\t', 'closed', 'x close', 'keep-alive, close') },
  expect: { ok: fc.constant('100-continue'), bad: one('foo', '100-continue, foo') },
  framingNames: { ok: one(['Content-Length', 'Transfer-Encoding'], ['content-length', 'transfer-encoding'], ['CONTENT-LENGTH', 'TRANSFER-ENCODING']), bad: one(['Content-Length', 'Transfer-Encoding']) },
  framing: { ok: one('none', 'length', 'chunked', 'chunked'), bad: one('both', 'unframed', 'twice', 'coded twice') },
  length: { ok: one('n', ' n', '00n', 'n '), bad: one('n\t', '+n', 'n, n', 'n n', '', '-1', '0xn', 'n+1', 'n-1', '9007199254740993', '99999999999999999999') },
  coding: { ok: one('chunked', 'CHUNKED', 'chunked ', ', chunked'), bad: one('chunked\t', 'gzip, chunked', 'chunked, gzip', 'chunked, chunked', 'chunked,', '', 'identity', 'xchunked', 'gzip', 'chunked;q=1') },
  chunkSize: { ok: one('hex', 'HEX', 'zeros'), bad: one('space', 'tab', '0x', 'more', 'less', 'huge') },
  chunkExt: {
    ok: one('', '', '', ';a', ';a=b', ';a="b c"', ';a="b\\"c"', ';a=""', ';a;b', ';a="b;c"', ';a="\t\xe9"'),
    bad: one(';a\nx', ';a\rx', '; a', ';a =b', ';a= b', ';a=b ', ';=b', ';a=', ';', ';;', ';;a', ';a=b;', ';a="b', ';a="\x7f"', ';a\xe9', ';a="b"c', ' ;a', '\t',
      `;a=${'b'.repeat(16_382)}`, `;a=${'b'.repeat(16_383)}`, `;${'a'.repeat(8_192)};${'b'.repeat(8_193)}`),
  },
  chunkEnd: { ok: fc.constant('\r\n'), bad: one('\n', '', 'xx', '\r') },
  trailer: { ok: one('X: t', 'X:', 'Host: y', 'x-b:\tu '), bad: one('X t', ' X: t', 'X : t', 'Content-Length: 5', 'Transfer-Encoding: chunked', 'X: t\x01', ': t', 'X: t\n') },
};
type Site = keyof typeof SITES;
type Values = { [S in Site]: (typeof SITES)[S]['ok'] extends fc.Arbitrary<infer T> ? T : never };

/** The chunked framing, where the smuggling of issue 37 was, is picked three times as often. */
const CHUNK_SITES: ReadonlySet<Site> = new Set(['coding', 'chunkSize', 'chunkExt', 'chunkEnd', 'trailer']);
const site = fc.oneof(...(Object.keys(SITES) as Site[]).map((s) => ({ weight: CHUNK_SITES.has(s) ? 3 : 1, arbitrary: fc.constant(s) })));

/** The sites of one request that get a bad value: most requests none or one. */
const faults: fc.Arbitrary<Site[]> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Site[]>([]) },
  { weight: 5, arbitrary: site.map((s) => [s]) },
  { weight: 1, arbitrary: fc.uniqueArray(site, { minLength: 2, maxLength: 3 }) },
);

/** A value for every site (bad at the faulty ones), drawn again for each use of a site. */
function values(bad: ReadonlySet<Site>): fc.Arbitrary<() => Values> {
  // A faulty site is bad at about half its uses, so a fault lands early or late in the request.
  const draw = (s: Site) => (bad.has(s) ? fc.oneof(SITES[s].ok as fc.Arbitrary<unknown>, SITES[s].bad as fc.Arbitrary<unknown>) : SITES[s].ok);
  const draws = Object.fromEntries((Object.keys(SITES) as Site[]).map((s) => [s, fc.array(draw(s), { minLength: 8, maxLength: 8 })]));
  return fc.record(draws as { [S in Site]: fc.Arbitrary<Values[S][]> }).map((lists) => {
    let i = 0;
    return () => {
      const v = Object.fromEntries(Object.entries(lists).map(([s, l]) => [s, (l as unknown[])[i % 8]])) as Values;
      i++;
      return v;
    };
  });
}

function field(draw: () => Values, name: string, value: string): string {
  const { fieldSpace: [before, after, trailing], fold, lineEnd } = draw();
  return `${name}${before}:${after}${value}${trailing}${fold}${lineEnd}`;
}

function chunkedBody(draw: () => Values, data: string[], trailers: number): string {
  let out = '';
  for (const d of [...data, '']) {
    const v = draw();
    const n = d.length;
    const sizes: Record<string, string> = {
      hex: n.toString(16), HEX: n.toString(16).toUpperCase(), zeros: `000${n.toString(16)}`, space: `${n.toString(16)} `, tab: `${n.toString(16)}\t`,
      '0x': `0x${n.toString(16)}`, more: (n + 1).toString(16), less: Math.max(0, n - 1).toString(16), huge: 'fffffffffffffff',
    };
    out += `${sizes[v.chunkSize]}${v.chunkExt}${v.lineEnd}`;
    if (n) out += d + v.chunkEnd;
  }
  for (let t = 0; t < trailers; t++) out += draw().trailer + draw().lineEnd;
  return out + draw().lineEnd;
}

/** One request: request line, Host, framing fields, a few other fields, body. */
const request = fc.tuple(faults, fc.array(fc.string({ unit: one('h', 'e', 'l', 'o', '\r', '\n', ' ', ';'), minLength: 1, maxLength: 6 }), { maxLength: 3 }),
  fc.nat({ max: 2 }), fc.array(one('name', 'connection', 'expect'), { maxLength: 3 }), one('', '', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', '0\r\n\r\n'))
  .chain(([bad, data, trailers, extras, tail]) => values(new Set(bad)).map((draw) => {
    const v = draw();
    let head = `${v.method}${v.space}${v.target}${draw().space}${v.version}${v.lineEnd}`;
    if (v.host === 'twice') head += field(draw, 'Host', 'x') + field(draw, 'host', 'x');
    else if (v.host !== 'missing') head += field(draw, 'Host', v.host);
    const body = v.framing === 'unframed' ? data.join('') + tail : v.framing === 'length' || v.framing === 'twice' ? data.join('') : '';
    const chunked = v.framing === 'chunked' || v.framing === 'both' || v.framing === 'coded twice' ? chunkedBody(draw, data, trailers) : '';
    const n = body.length;
    const length = v.length.replace(/n\+1/, String(n + 1)).replace(/n-1/, String(Math.max(0, n - 1))).replace(/n/g, String(n));
    const [lengthName, codingName] = draw().framingNames;
    if (v.framing === 'length' || v.framing === 'both' || v.framing === 'twice') head += field(draw, lengthName, length);
    if (v.framing === 'twice') head += field(draw, 'Content-Length', length);
    if (v.framing === 'coded twice') head += field(draw, codingName, draw().coding);
    if (v.framing === 'chunked' || v.framing === 'both' || v.framing === 'coded twice') head += field(draw, codingName, v.coding);
    for (const e of extras) {
      const d = draw();
      head += e === 'name' ? field(draw, d.name, d.value) : e === 'connection' ? field(draw, 'Connection', d.connection) : field(draw, 'Expect', d.expect);
    }
    return `${head}${draw().lineEnd}${chunked || body}`;
  }));

/** One to three pipelined requests, with empty lines (CRLF, bare LF or CR) before some. */
const before = fc.oneof({ weight: 40, arbitrary: fc.constant('') }, { weight: 4, arbitrary: fc.constant('\r\n') }, { weight: 2, arbitrary: one('\n', '\r\n\r\n') },
  { weight: 1, arbitrary: fc.constant('\r') });
const stream = fc.array(fc.tuple(before, request), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([before, r]) => before + r).join(''));

/** A request stream and the points where it is cut into TCP writes. */
export const requestStream: fc.Arbitrary<{ text: string; pieces: Buffer[] }> = fc.tuple(stream, fc.array(fc.nat(), { maxLength: 4 }))
  .map(([text, cuts]) => {
    const bytes = Buffer.from(text, 'latin1');
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
    const pieces: Buffer[] = [];
    let from = 0;
    for (const c of [...at, bytes.length]) {
      pieces.push(bytes.subarray(from, c));
      from = c;
    }
    return { text, pieces };
  });
