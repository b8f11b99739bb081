/**
 * The CSR cleaner over a real server and etcd: requests reach their states through the API
 * (`/approval`, `/status`), and a cleaner built on the server's store with its retention given
 * deletes them. The server's own `csrcleaner` (hourly) is turned off so that only the cleaner of
 * each suite acts: once with Kubernetes' figures (1 hour, 24 hours; condition times set in the
 * past by the client), once with intervals of seconds on the real clock.
 */
import { expect } from 'chai';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { makeCsrPem, requestField } from '../helpers/csr-request';
import { createTestCa, issueTestCert } from '../helpers/test-ca';
import { CsrCleaner, CsrRetention, DEFAULT_CSR_RETENTION } from '../../lib/controllers/csr-cleaner';
import { GenericStore } from '../../lib/registry/store';

type Obj = Record<string, any>;
const GROUP = 'certificates.orch.io';
const BASE = `/apis/${GROUP}/v1/certificatesigningrequests`;
// No built-in signer or approver acts on this signer.
const SIGNER = 'example.com/cleaner-test';
const HOUR = 3600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');

describe('CSR cleaner (csrcleaner)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let cleaner: CsrCleaner | undefined;
  let seq = 0;
  const pem = makeCsrPem({ commonName: 'cleaner-test' });
  const ca = createTestCa('csr-cleaner-ca');

  const create = async (): Promise<Obj> => {
    const res = await t.post(BASE, {
      apiVersion: `${GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: `cleaner-${++seq}` },
      spec: { request: requestField(pem), signerName: SIGNER, usages: ['digital signature', 'client auth'] },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  /** Adds a condition through `/approval` (Approved, Denied) or `/status` (Failed). */
  const condition = async (obj: Obj, type: string, lastUpdateTime?: string): Promise<Obj> => {
    const sub = type === 'Failed' ? 'status' : 'approval';
    const c = { type, status: 'True', reason: 'Test', message: 'by test', ...(lastUpdateTime ? { lastUpdateTime } : {}) };
    const res = await t.put(`${BASE}/${obj.metadata.name}/${sub}`, { ...obj, status: { ...obj.status, conditions: [...(obj.status?.conditions ?? []), c] } });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const issue = async (obj: Obj, notAfter = new Date(Date.now() + 24 * HOUR)): Promise<Obj> => {
    const cert = issueTestCert(ca, { commonName: 'cleaner-test', notBefore: new Date(Date.now() - 48 * HOUR), notAfter }).certPem;
    const res = await t.put(`${BASE}/${obj.metadata.name}/status`, { ...obj, status: { ...obj.status, certificate: Buffer.from(cert).toString('base64') } });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const exists = async (obj: Obj): Promise<boolean> => {
    const res = await t.get(`${BASE}/${obj.metadata.name}`);
    expect([200, 404]).to.include(res.status);
    return res.status === 200;
  };
  const gone = (obj: Obj, timeoutMs = 15_000) => eventually(async () => !(await exists(obj)), timeoutMs);

  async function startCleaner(retention: CsrRetention): Promise<void> {
    const store = [...t.server.stores.values()].find((s) => s.def.group === GROUP && s.def.resource === 'certificatesigningrequests');
    cleaner = new CsrCleaner(store as GenericStore, retention);
    await cleaner.start();
  }

  before(async () => {
    t = await startTestServer(['--controllers=*,-csrcleaner']);
  });
  afterEach(async () => { await cleaner?.stop(); cleaner = undefined; });
  after(async () => { await t?.stop(); });

  it('is off when --controllers says -csrcleaner', () => {
    expect(t.server.controllers.names()).not.to.include('csrcleaner');
  });

  describe("with Kubernetes' figures", () => {
    it('removes approved+issued, denied and failed requests an hour after their condition, and any whose certificate expired', async () => {
      const approvedOld = await issue(await condition(await create(), 'Approved', ago(HOUR + 60_000)));
      const approvedNew = await issue(await condition(await create(), 'Approved', ago(30 * 60_000)));
      const approvedNoCert = await condition(await create(), 'Approved', ago(2 * HOUR));
      const expiredCert = await issue(await condition(await create(), 'Approved'), new Date(Date.now() - 60_000));
      const deniedOld = await condition(await create(), 'Denied', ago(HOUR + 60_000));
      const deniedNew = await condition(await create(), 'Denied', ago(30 * 60_000));
      const failedOld = await condition(await create(), 'Failed', ago(HOUR + 60_000));
      const failedNew = await condition(await create(), 'Failed', ago(30 * 60_000));
      const pending = await create();

      await startCleaner({ ...DEFAULT_CSR_RETENTION, pollIntervalMs: 200 });
      for (const obj of [approvedOld, expiredCert, deniedOld, failedOld]) await gone(obj);
      // One more full poll: what stays is not merely late.
      await new Promise((r) => setTimeout(r, 600));
      for (const obj of [approvedNew, approvedNoCert, deniedNew, failedNew, pending]) {
        expect(await exists(obj), obj.metadata.name).to.equal(true);
      }
    });
  });

  describe('with short intervals', () => {
    const retention: CsrRetention = { pollIntervalMs: 200, approvedMs: 2000, deniedMs: 2000, failedMs: 2000, pendingMs: 4000 };

    it('removes a denied request once its Denied condition is older than the interval', async () => {
      const denied = await condition(await create(), 'Denied');
      await startCleaner(retention);
      await gone(denied);
      expect(Date.now() - Date.parse(denied.status.conditions[0].lastUpdateTime)).to.be.above(retention.deniedMs);
    });

    it('removes a failed request once its Failed condition is older than the interval', async () => {
      const failed = await condition(await create(), 'Failed');
      await startCleaner(retention);
      await gone(failed);
      expect(Date.now() - Date.parse(failed.status.conditions[0].lastUpdateTime)).to.be.above(retention.failedMs);
    });

    it('removes an issued request after the approved interval; an approved one without certificate stays', async () => {
      const issued = await issue(await condition(await create(), 'Approved'));
      const waiting = await condition(await create(), 'Approved');
      await startCleaner(retention);
      await gone(issued);
      expect(Date.now() - Date.parse(issued.status.conditions[0].lastUpdateTime)).to.be.above(retention.approvedMs);
      expect(await exists(waiting)).to.equal(true);
    });

    it('removes a pending request after the pending interval from its creation', async () => {
      const pending = await create();
      await startCleaner(retention);
      await gone(pending);
      expect(Date.now() - Date.parse(pending.metadata.creationTimestamp)).to.be.above(retention.pendingMs);
    });
  });
});
