/**
 * Flags set away from their defaults, each observed in effect on one server (real etcd):
 *  - --min-request-timeout=2: a watch without timeoutSeconds ends within [2 s, 4 s);
 *  - --service-account-jwks-uri: the issuer discovery document's jwks_uri is that URL;
 *  - --http2-max-streams-per-connection=5: SETTINGS_MAX_CONCURRENT_STREAMS is 5, and a sixth
 *    stream while five are open is refused (REFUSED_STREAM), the five going on;
 *  - --shutdown-watch-termination-grace-period=1s: at shutdown, a watch whose client takes no
 *    data (a zero HTTP/2 window) is cut after about 1 s, not after the 10 s drain (last: it stops
 *    the server).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { adminTarget, WatchClient } from '../helpers/watch-client';
import { FRAME, H2_ERROR, RawH2, requestHeaderBlock } from '../helpers/raw-h2';

const MIN_REQUEST_TIMEOUT_S = 2;
const JWKS_URI = 'https://keys.example.com/openid/v1/jwks';
const MAX_STREAMS = 5;
const WATCH_GRACE_MS = 1_000;
/** graceful-shutdown's drain timeout, which a grace period of 0 would leave the watch. */
const DRAIN_TIMEOUT_MS = 10_000;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('flags in effect: --min-request-timeout, --service-account-jwks-uri, --http2-max-streams-per-connection, --shutdown-watch-termination-grace-period', function () {
  this.timeout(60_000);
  let t: TestServer;
  let creds: { ca: string; cert: string; key: string };
  let authority: string;

  before(async () => {
    t = await startTestServer([
      `--min-request-timeout=${MIN_REQUEST_TIMEOUT_S}`, `--service-account-jwks-uri=${JWKS_URI}`,
      `--http2-max-streams-per-connection=${MAX_STREAMS}`, `--shutdown-watch-termination-grace-period=${WATCH_GRACE_MS}ms`,
    ]);
    creds = { ca: t.server.pki.caCertPem, cert: readFileSync(t.server.pki.adminCertFile, 'utf8'), key: readFileSync(t.server.pki.adminKeyFile, 'utf8') };
    authority = new URL(t.server.url).host;
  });
  after(async () => { await t?.stop(); });

  it('--min-request-timeout=2: watches without timeoutSeconds end after a random time in [2 s, 4 s)', async () => {
    const watches = [1, 2, 3].map(() => new WatchClient(adminTarget(t.server), `${CONFIGMAPS}?watch=1`));
    try {
      for (const w of watches) expect((await w.response()).statusCode).to.equal(200);
      const endedAt = await Promise.all(watches.map(async (w) => { await w.waitEnded(2 * MIN_REQUEST_TIMEOUT_S * 1000 + 5_000); return Date.now(); }));
      watches.forEach((w, i) => {
        // The server's timer starts after the request was sent and before the response headers came.
        const atLeast = endedAt[i] - w.openedAt;
        const atMost = endedAt[i] - w.headersAt;
        expect(atLeast, `watch ${i}`).to.be.at.least(MIN_REQUEST_TIMEOUT_S * 1000);
        expect(atMost, `watch ${i}`).to.be.below(2 * MIN_REQUEST_TIMEOUT_S * 1000);
        expect(w.errorBody).to.equal(undefined);
        expect(w.junk).to.deep.equal([]);
      });
    } finally {
      for (const w of watches) w.close();
    }
  });

  it('--service-account-jwks-uri: the issuer discovery document points at that URL', async () => {
    const r = await t.get('/.well-known/openid-configuration');
    expect(r.status).to.equal(200);
    expect(r.body.jwks_uri).to.equal(JWKS_URI);
    // The keys are still served here too, for whoever fronts them at that URL.
    expect((await t.get('/openid/v1/jwks')).status).to.equal(200);
  });

  it('--http2-max-streams-per-connection=5: announces 5 streams and refuses a sixth while five are open', async () => {
    const c = await RawH2.connect(t.server.url, creds);
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      expect(c.serverSettings.get(0x3)).to.equal(MAX_STREAMS); // SETTINGS_MAX_CONCURRENT_STREAMS
      // timeoutSeconds keeps them open past --min-request-timeout.
      const watch = requestHeaderBlock('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=60`, authority);
      const ids = Array.from({ length: MAX_STREAMS }, () => c.streamId());
      await c.write(Buffer.concat(ids.map((id) => c.headersFrames(id, watch))));
      await c.until(() => new Set(c.of(FRAME.HEADERS).map((f) => f.streamId)).size >= MAX_STREAMS, 10_000, `${MAX_STREAMS} watch responses`);
      const extra = c.streamId();
      await c.write(c.headersFrames(extra, watch));
      await c.until(() => c.rstCode(extra) !== undefined, 10_000, 'the sixth stream refused');
      expect(c.rstCode(extra)).to.equal(H2_ERROR.REFUSED_STREAM);
      expect(c.of(FRAME.HEADERS, extra)).to.have.length(0);
      expect(ids.filter((id) => c.rstCode(id) !== undefined || c.ended(id))).to.deep.equal([]);
      expect(c.closed).to.equal(false);
    } finally {
      c.close();
    }
  });

  it('--shutdown-watch-termination-grace-period=1s: at shutdown, a watch that cannot reach its client is cut after 1 s', async () => {
    expect((await t.post(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'grace' } })).status).to.equal(201);
    // A zero stream window: the watch's first event (the ConfigMap's ADDED) and its end wait for a WINDOW_UPDATE never sent.
    const c = await RawH2.connect(t.server.url, creds, { settings: [[0x4, 0]], manualWindow: true });
    try {
      await c.until(() => c.serverSettings.size > 0, 5_000, 'server SETTINGS');
      const id = c.streamId();
      await c.write(c.headersFrames(id, requestHeaderBlock('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=60`, authority)));
      await c.until(() => c.of(FRAME.HEADERS, id).length > 0, 10_000, 'the watch response');
      expect(c.of(FRAME.DATA, id)).to.have.length(0);
      const started = Date.now();
      const stopped = t.server.stop();
      await c.until(() => c.rstCode(id) !== undefined || c.closed, DRAIN_TIMEOUT_MS + 5_000, 'the watch cut');
      const cutAfter = Date.now() - started;
      expect(c.ended(id), 'the watch cannot have ended cleanly').to.equal(false);
      expect(cutAfter, `cut after ${cutAfter} ms`).to.be.at.least(WATCH_GRACE_MS - 50).and.below(DRAIN_TIMEOUT_MS / 2);
      c.close();
      await stopped;
    } finally {
      c.close();
    }
  });
});
