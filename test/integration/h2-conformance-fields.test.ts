/**
 * HTTP/2 conformance beyond h2spec: field validity (RFC 9113 8.2.1, 8.3.1) and CONNECT (8.5).
 * HPACK carries any octets, so a request can hold what HTTP/1.1's parser would never let through:
 * CR, LF or NUL in a value (a header injected into what the app logs or forwards), whitespace
 * around a value, names that are not tokens, pseudo-headers that do not parse. Each is a
 * malformed request: RST_STREAM PROTOCOL_ERROR, the app never sees it (no response on the
 * stream), and the connection serves the next request. Their lawful neighbours are served.
 *
 * CONNECT is not served here: a well-formed one gets Kubernetes' 405 Status, and a CONNECT that
 * breaks 8.5's form, or an extended CONNECT (:protocol, never enabled), is malformed.
 */
import { expect } from 'chai';
import { FLAG, H2Conn, IMPL, PATH, useConformanceServer } from '../helpers/h2-conformance';

const PROTOCOL_ERROR = 0x1;
type Fields = Array<[string, string]>;

describe(`HTTP/2 conformance: field validity and CONNECT, RFC 9113 8.2-8.5 (--http2-server=${IMPL})`, function () {
  this.timeout(20_000);
  const suite = useConformanceServer();
  const open = suite.open.bind(suite);
  /** GET /healthz with the pseudo-headers replaced by `pseudo` and `extra` after them. */
  const get = (c: H2Conn, pseudo: Record<string, string | undefined> = {}, extra: Fields = []): Fields => {
    const fields = c.fields('GET', PATH.healthz).filter(([k]) => !(k in pseudo)) as Fields;
    for (const [k, v] of Object.entries(pseudo)) if (v !== undefined) fields.push([k, v]);
    return [...fields.sort(([a], [b]) => Number(b.startsWith(':')) - Number(a.startsWith(':'))), ...extra];
  };
  const malformed = (what: string, fields: (c: H2Conn) => Fields, flags = FLAG.END_HEADERS | FLAG.END_STREAM) => {
    it(`${what}: RST_STREAM PROTOCOL_ERROR, not served`, async () => {
      const c = await open();
      const s = c.streamId();
      await c.headers(s, fields(c), flags);
      await c.expectStreamError(s, PROTOCOL_ERROR);
    });
  };


  describe('8.2.1 field values: no CR, LF or NUL; no whitespace at either end', () => {
    const values: Array<[string, string]> = [
      ['CR LF (a second header injected)', 'x\r\nset-cookie: a=1'], ['LF', 'x\ny'], ['CR', 'x\ry'], ['NUL', 'x\0y'],
      ['a leading SP', ' x'], ['a trailing SP', 'x '], ['a leading HTAB', '\tx'], ['a trailing HTAB', 'x\t'],
    ];
    for (const [what, value] of values) malformed(`RFC 9113 8.2.1 a field value with ${what}`, (c) => get(c, {}, [['audit-id', value]]));

    it('RFC 9113 8.2.1 SP and HTAB inside a value are lawful: served, the value as sent', async () => {
      const c = await open();
      const s = await c.request('GET', PATH.healthz, { extra: [['audit-id', 'a b\tc']] });
      await c.expectOk(s);
      expect(c.responses(s)[0]['audit-id'], c.log()).to.equal('a b\tc');
    });
  });

  describe('8.2.1 field names: tokens, lower-case', () => {
    const names: Array<[string, string]> = [['a space', 'x test'], ['a colon', 'x:test'], ['a character outside tchar', 'x@test'], ['nothing (an empty name)', '']];
    for (const [what, name] of names) malformed(`RFC 9113 8.2.1 a field name with ${what}`, (c) => get(c, {}, [[name, 'v']]));

    it('RFC 9113 8.2.1 a name of every tchar but upper-case letters is lawful: served', async () => {
      const c = await open();
      await c.expectOk(await c.request('GET', PATH.healthz, { extra: [["x-!#$%&'*+-.^_`|~09az", 'v']] }));
    });
  });

  describe('8.3.1 request pseudo-headers', () => {
    malformed('RFC 9113 8.3.1 a :path not starting with "/"', (c) => get(c, { ':path': 'healthz' }));
    malformed('RFC 9113 8.3.1 a :path of "*" on a GET (only OPTIONS takes it)', (c) => get(c, { ':path': '*' }));
    malformed('RFC 9113 8.3.1 a :method that is not a token', (c) => get(c, { ':method': 'GE(T' }));
    malformed('RFC 9113 8.3.1 an :authority with userinfo', (c) => get(c, { ':authority': `user@${c.authority}` }));
    malformed('RFC 9113 8.3.1 an :authority with a character a host cannot have', (c) => get(c, { ':authority': 'bad^host' }));
    malformed('RFC 9113 8.3.1 a :scheme that is not a scheme', (c) => get(c, { ':scheme': '1https' }));
    malformed('RFC 9113 8.3.1 a Host that differs from :authority', (c) => get(c, {}, [['host', 'other.example']]));

    it('RFC 9113 8.3.1 a Host equal to :authority is lawful: served', async () => {
      const c = await open();
      await c.expectOk(await c.request('GET', PATH.healthz, { extra: [['host', c.authority]] }));
    });

    it('RFC 9113 8.3.1 OPTIONS with a :path of "*" is lawful: answered, not reset, no 5xx', async () => {
      const c = await open();
      const s = c.streamId();
      await c.headers(s, [[':method', 'OPTIONS'], [':scheme', 'https'], [':path', '*'], [':authority', c.authority]]);
      await c.answered(s);
      expect({ rst: c.rstCodes(s), serverError: (c.status(s) ?? 500) >= 500, ended: c.raw.ended(s) }, c.log()).to.deep.equal({ rst: [], serverError: false, ended: true });
    });
  });

  describe('8.5 CONNECT', () => {
    it('RFC 9113 8.5 a well-formed CONNECT: 405 with a Kubernetes Status (MethodNotAllowed), the stream ended', async () => {
      const c = await open();
      const s = c.streamId();
      await c.headers(s, [[':method', 'CONNECT'], [':authority', c.authority]], FLAG.END_HEADERS);
      await c.answered(s);
      let status: { kind?: string; reason?: string; code?: number } = {};
      try { status = JSON.parse(c.body(s)); } catch { status = {}; }
      expect({ status: c.status(s), ended: c.raw.ended(s), kind: status.kind, reason: status.reason, code: status.code }, c.log())
        .to.deep.equal({ status: 405, ended: true, kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
      await c.served();
    });

    malformed('RFC 9113 8.5 a CONNECT with :path', (c) => [[':method', 'CONNECT'], [':path', '/'], [':authority', c.authority]], FLAG.END_HEADERS);
    malformed('RFC 9113 8.5 a CONNECT with :scheme', (c) => [[':method', 'CONNECT'], [':scheme', 'https'], [':authority', c.authority]], FLAG.END_HEADERS);
    malformed('RFC 9113 8.5 a CONNECT without :authority', () => [[':method', 'CONNECT']], FLAG.END_HEADERS);

    it('RFC 8441 4 an extended CONNECT (:protocol) on a server that never sent SETTINGS_ENABLE_CONNECT_PROTOCOL: RST_STREAM PROTOCOL_ERROR, not served', async () => {
      const c = await open();
      expect(c.raw.serverSettings.get(0x8) ?? 0, 'SETTINGS_ENABLE_CONNECT_PROTOCOL').to.equal(0);
      const s = c.streamId();
      await c.headers(s, [[':method', 'CONNECT'], [':protocol', 'websocket'], [':scheme', 'https'], [':path', PATH.watch], [':authority', c.authority]], FLAG.END_HEADERS);
      await c.expectStreamError(s, PROTOCOL_ERROR);
    });
  });
});
