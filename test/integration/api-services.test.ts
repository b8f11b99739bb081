/**
 * apiregistration/v1 APIService over HTTPS against a real etcd, as kube-aggregator 1.32 answers:
 * a local APIService is Available (reason Local) from its create, a remote one has no status and
 * its service's port defaults to 443; every rule of ValidateAPIService as a 422 with Kubernetes'
 * causes and nothing stored, on create and on update; an update must name a resourceVersion; a
 * write to the object keeps the status and `/status` keeps the spec and labels, with its own
 * validation of the conditions; no generation; a caBundle that is not base64 is a 400; DELETE
 * answers a Status; discovery's `api-extensions` category; the Table's columns. Remote APIServices
 * here name services that do not exist, so that an availability controller may write their status
 * at any time: what is checked of them is what each write answers, and refused writes are checked
 * on the one object they name.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch } from '../helpers/kind-checks';

type Body = Record<string, any>;

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAK\n-----END CERTIFICATE-----\n');
const CA64 = CA.toString('base64');
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const PORT_MSG = 'port is not valid: must be between 1 and 65535, inclusive';
const mustBe = (name: string) => `must be \`spec.version+"."+spec.group\`: "${name}"`;
const invalid = (field: string, value: string, detail: string): Cause => ({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${detail}` });
const required = (field: string, detail?: string): Cause => ({ field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' });

describe('APIService (apiregistration/v1)', () => {
  let t: TestServer;
  let group: string;
  const path = (name = '') => `/apis/${group}/v1/apiservices${name ? `/${name}` : ''}`;
  const apiService = (name: string, spec: Body): Body => ({ apiVersion: `${group}/v1`, kind: 'APIService', metadata: { name }, spec });
  const local = (g: string, v = 'v1', more: Body = {}): Body => apiService(`${v}.${g}`, { group: g, version: v, groupPriorityMinimum: 1000, versionPriority: 15, ...more });
  const remote = (g: string, service: Body, more: Body = {}): Body =>
    apiService(`v1.${g}`, { group: g, version: 'v1', service, caBundle: CA64, groupPriorityMinimum: 1000, versionPriority: 15, ...more });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => expectInvalidCauses(res, 'APIService', causes);
  /** Runs `write` and expects the object `name` to be as it was (its resourceVersion), or still absent. */
  async function refusedLeaving(name: string, write: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const version = async () => { const r = await t.get(path(name)); return r.status === 404 ? 'absent' : r.body.metadata.resourceVersion; };
    const before = await version();
    const res = await write();
    expect(await version(), 'the refused write changed the object').to.equal(before);
    return res;
  }
  const withoutVersion = (obj: Body): Body => { const { resourceVersion: _rv, ...meta } = obj.metadata; return { ...obj, metadata: meta }; };
  const created = async (body: Body): Promise<Body> => {
    const res = await t.post(path(), body);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('apiregistration');
  });
  after(async () => { await t?.stop(); });

  describe('create', () => {
    it('marks a local APIService Available (Local), with no generation', async () => {
      const before = Date.now() - 2000;
      const obj = await created(local('local.example.com'));
      expect(obj.spec).to.deep.equal({ group: 'local.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 });
      expect(obj.status.conditions).to.have.length(1);
      const [c] = obj.status.conditions;
      expect(c).to.include({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
      expect(Date.parse(c.lastTransitionTime)).to.be.at.least(before);
      expect(obj.metadata.generation).to.equal(undefined);
      expect((await t.get(path('v1.local.example.com'))).body.status).to.deep.equal(obj.status);
    });

    it("drops a remote APIService's status, defaults its service port to 443 and keeps the caBundle", async () => {
      const body = remote('remote.example.com', { namespace: 'ext', name: 'api' });
      body.status = { conditions: [{ type: 'Available', status: 'True', reason: 'Claimed' }] };
      const obj = await created(body);
      expect(obj.spec.service).to.deep.equal({ namespace: 'ext', name: 'api', port: 443 });
      expect(obj.spec.caBundle).to.equal(CA64);
      expect(obj.status).to.deep.equal({});
      const kept = await created(remote('port.example.com', { namespace: 'ext', name: 'api', port: 8443 }));
      expect(kept.spec.service.port).to.equal(8443);
      // Go's base64 skips line breaks; the bytes are written back without them.
      const wrapped = await created(remote('wrapped.example.com', { namespace: 'ext', name: 'api' }, { caBundle: CA64.replace(/(.{16})/g, '$1\n') }));
      expect(wrapped.spec.caBundle).to.equal(CA64);
    });

    it('accepts the core group as v1. with an empty group, and leaves out the zero values Go omits (dry run: the server may keep its own v1.)', async () => {
      const res = await t.post(`${path()}?dryRun=All`, apiService('v1.', { group: '', version: 'v1', service: null, insecureSkipTLSVerify: false, caBundle: '', groupPriorityMinimum: 18000, versionPriority: 1 }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
      expect(res.body.metadata.name).to.equal('v1.');
      expect(res.body.status.conditions[0]).to.include({ type: 'Available', status: 'True', reason: 'Local' });
    });

    it('refuses a caBundle that is not base64 with a 400, storing nothing', async () => {
      const res = await refusedLeaving('v1.b64.example.com', () => t.post(path(), remote('b64.example.com', { namespace: 'ext', name: 'api' }, { caBundle: 'not*base64' })));
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest' });
      expect(res.body.message).to.contain('illegal base64 data at input byte 3');
    });
  });

  describe("kube-aggregator's validation", () => {
    const svc = { namespace: 'ext', name: 'api' };
    const rows: Array<[string, () => Body, Cause[]]> = [
      ['a name that is not <version>.<group>', () => ({ ...local('named.example.com'), metadata: { name: 'v1.other.example.com' } }),
        [invalid('metadata.name', '"v1.other.example.com"', mustBe('v1.named.example.com'))]],
      ['a name that is not a path segment (and no more about it)', () => ({ ...local('slash.example.com'), metadata: { name: 'v1.slash/x' } }),
        [invalid('metadata.name', '"v1.slash/x"', "may not contain '/'")]],
      ['an empty group but for v1', () => apiService('v2.', { version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 }),
        [required('spec.group', 'only v1 may have an empty group and it better be legacy kube')]],
      ['a group that is not a DNS-1123 subdomain', () => local('Bad_Group'), [invalid('spec.group', '"Bad_Group"', SUBDOMAIN_MSG)]],
      ['a version that is not a DNS-1035 label', () => local('ver.example.com', '1beta'), [invalid('spec.version', '"1beta"', DNS1035_MSG)]],
      ['no version', () => apiService('.nover.example.com', { group: 'nover.example.com', groupPriorityMinimum: 1, versionPriority: 1 }),
        [invalid('spec.version', '""', DNS1035_MSG)]],
      ['priorities of 0 (absent)', () => apiService('v1.prio0.example.com', { group: 'prio0.example.com', version: 'v1' }), [
        invalid('spec.groupPriorityMinimum', '0', 'must be positive and less than 20000'),
        invalid('spec.versionPriority', '0', 'must be positive and less than 1000')]],
      ['priorities above their ceilings', () => local('prio.example.com', 'v1', { groupPriorityMinimum: 20001, versionPriority: 1001 }), [
        invalid('spec.groupPriorityMinimum', '20001', 'must be positive and less than 20000'),
        invalid('spec.versionPriority', '1001', 'must be positive and less than 1000')]],
      ['negative priorities', () => local('neg.example.com', 'v1', { groupPriorityMinimum: -1, versionPriority: -5 }), [
        invalid('spec.groupPriorityMinimum', '-1', 'must be positive and less than 20000'),
        invalid('spec.versionPriority', '-5', 'must be positive and less than 1000')]],
      ['a local APIService with a caBundle and insecureSkipTLSVerify', () => local('localca.example.com', 'v1', { caBundle: CA64, insecureSkipTLSVerify: true }), [
        invalid('spec.caBundle', `"${CA.length} bytes"`, 'local APIServices may not have a caBundle'),
        invalid('spec.insecureSkipTLSVerify', 'true', 'local APIServices may not have insecureSkipTLSVerify')]],
      ['a service without namespace and name', () => remote('noname.example.com', {}), [required('spec.service.namespace'), required('spec.service.name')]],
      ['a service port of 0', () => remote('port0.example.com', { ...svc, port: 0 }), [invalid('spec.service.port', '0', PORT_MSG)]],
      ['a service port above 65535', () => remote('port70k.example.com', { ...svc, port: 70000 }), [invalid('spec.service.port', '70000', PORT_MSG)]],
      ['insecureSkipTLSVerify beside a caBundle', () => remote('both.example.com', svc, { insecureSkipTLSVerify: true }),
        [invalid('spec.insecureSkipTLSVerify', 'true', 'may not be true if caBundle is present')]],
    ];
    for (const [what, make, causes] of rows) {
      it(`refuses ${what}`, async () => {
        const body = make();
        const res = await refusedLeaving(body.metadata.name, () => t.post(path(), body));
        expectInvalid(res, causes);
      });
    }

    it('accepts insecureSkipTLSVerify without a caBundle', async () => {
      const obj = await created(remote('insecure.example.com', svc, { caBundle: undefined, insecureSkipTLSVerify: true }));
      expect(obj.spec).to.include({ insecureSkipTLSVerify: true });
      expect(obj.spec).not.to.have.property('caBundle');
    });

    it('validates an update as a create: a changed group no longer matches the name', async () => {
      const obj = await created(local('moving.example.com'));
      const res = await refusedLeaving('v1.moving.example.com', () => t.put(path('v1.moving.example.com'), { ...obj, spec: { ...obj.spec, group: 'moved.example.com' } }));
      expectInvalid(res, [invalid('metadata.name', '"v1.moving.example.com"', mustBe('v1.moved.example.com'))]);
    });
  });

  describe('update and /status', () => {
    it('requires a resourceVersion on PUT', async () => {
      const obj = await created(local('rv.example.com'));
      const { resourceVersion: _rv, ...meta } = obj.metadata;
      const res = await refusedLeaving('v1.rv.example.com', () => t.put(path('v1.rv.example.com'), { ...obj, metadata: meta }));
      expectInvalid(res, [invalid('metadata.resourceVersion', '0', 'must be specified for an update')]);
    });

    it('keeps the stored status on a write to the object, without a generation', async () => {
      const obj = await created(local('keep.example.com'));
      const res = await t.put(path('v1.keep.example.com'), {
        ...obj, spec: { ...obj.spec, versionPriority: 20 }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'Mine' }] },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.versionPriority).to.equal(20);
      expect(res.body.status).to.deep.equal(obj.status);
      expect(res.body.metadata.generation).to.equal(undefined);
      const patched = await mergePatch(t, path('v1.keep.example.com'), { status: { conditions: [{ type: 'Available', status: 'Unknown' }] } });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.status).to.deep.equal(obj.status);
    });

    it('takes only the status through /status, keeping spec and labels', async () => {
      const obj = await created(remote('status.example.com', { namespace: 'ext', name: 'api' }));
      const condition = { type: 'Available', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ServiceNotFound', message: 'service/api in "ext" is not present' };
      const res = await t.put(path('v1.status.example.com/status'), {
        ...withoutVersion(obj), metadata: { name: obj.metadata.name, labels: { sneaked: 'in' } }, spec: { ...obj.spec, versionPriority: 999 }, status: { conditions: [condition] },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.deep.equal({ conditions: [condition] });
      expect(res.body.spec).to.deep.equal(obj.spec);
      expect(res.body.metadata.labels).to.equal(undefined);

      // A merge patch of /status (what a controller sends) by the condition.
      const patched = await mergePatch(t, path('v1.status.example.com/status'), { status: { conditions: [{ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }] } });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.status.conditions).to.deep.equal([{ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }]);
    });

    it('refuses a condition status other than True, False or Unknown through /status, storing nothing', async () => {
      const obj = await created(local('badstatus.example.com'));
      const res = await refusedLeaving('v1.badstatus.example.com', () => t.put(path('v1.badstatus.example.com/status'), {
        ...obj, status: { conditions: [{ type: 'Available', status: 'True' }, { type: 'Other', status: 'Maybe' }] },
      }));
      expectInvalid(res, [{ field: 'status.conditions[1].status', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"' }]);
    });
  });

  describe('hostile values', () => {
    const HOSTILE: unknown[] = [null, '', 'x', 0, -1, 2 ** 31, 2 ** 53, 1.5, 1e300, true, [], {}, [[1]], { a: { b: [] } }, 'not*base64=='];
    /** Every path to a value of `v`, the root excluded. */
    const paths = (v: unknown, at: Array<string | number> = []): Array<Array<string | number>> => {
      if (!v || typeof v !== 'object') return [];
      return Object.entries(v as Body).flatMap(([k, c]) => [[...at, Array.isArray(v) ? Number(k) : k], ...paths(c, [...at, Array.isArray(v) ? Number(k) : k])]);
    };
    const replaced = (v: Body, at: Array<string | number>, value: unknown): Body => {
      const out = JSON.parse(JSON.stringify(v));
      let o = out;
      for (const k of at.slice(0, -1)) o = o[k];
      o[at[at.length - 1]] = value;
      return out;
    };
    const expectAnswered = (res: HttpResponse, what: string) => {
      expect(res.status, `${what}: ${res.text}`).to.be.below(500);
      if (res.status >= 400) expect(res.body, `${what}: ${res.text}`).to.include({ kind: 'Status', status: 'Failure' });
    };

    it('answers every value anywhere in a create, an update and a /status write below 500, with a Status when refused', async function () {
      this.timeout(120_000);
      const base = remote('hostile.example.com', { namespace: 'ext', name: 'api', port: 8443 });
      base.status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'R', message: 'm' }] };
      const stored = await created(local('hostile-local.example.com'));
      for (const at of paths(base).filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind' && p[0] !== 'metadata')) {
        for (const value of HOSTILE) {
          const body = replaced(base, at, value);
          const what = `${at.join('.')} = ${JSON.stringify(value)}`;
          const res = await t.post(path(), body);
          expectAnswered(res, `create ${what}`);
          if (res.status === 201) expect((await t.del(path(body.metadata.name))).status).to.be.below(300);
          const current = (await t.get(path('v1.hostile-local.example.com'))).body;
          const update = replaced({ ...base, metadata: current.metadata }, at, value);
          expectAnswered(await t.put(path('v1.hostile-local.example.com'), update), `update ${what}`);
          expectAnswered(await t.put(path('v1.hostile-local.example.com/status'), { ...update, metadata: { name: stored.metadata.name } }), `status ${what}`);
        }
      }
      expect((await t.get('/livez')).status).to.equal(200);
    });
  });

  describe('delete, discovery and Table', () => {
    it('answers DELETE with a Status Success naming the object', async () => {
      const obj = await created(local('gone.example.com'));
      const res = await t.del(path('v1.gone.example.com'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
      expect(res.body.details).to.deep.include({ name: 'v1.gone.example.com', group, kind: 'apiservices', uid: obj.metadata.uid });
      expect((await t.get(path('v1.gone.example.com'))).status).to.equal(404);
    });

    it('is listed in discovery, cluster-scoped, in the api-extensions category, with /status, its group first in /apis', async () => {
      const resources = (await t.get(`/apis/${group}/v1`)).body.resources as Body[];
      const main = resources.find((r) => r.name === 'apiservices');
      expect(main).to.deep.include({ kind: 'APIService', namespaced: false, singularName: 'apiservice', categories: ['api-extensions'] });
      expect(main!.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
      expect(resources.find((r) => r.name === 'apiservices/status')).to.deep.include({ kind: 'APIService', verbs: ['get', 'patch', 'update'] });
      // groupPriorityMinimum 18000, as kube-apiserver's: the first named group of /apis.
      expect((await t.get('/apis')).body.groups[0].name).to.equal(group);
    });

    it('prints NAME SERVICE AVAILABLE AGE, a local APIService as Local and True', async () => {
      const table = (await t.get(path(), TABLE)).body;
      expect(table.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Service', 'Available', 'Age']);
      expect(table.columnDefinitions[1].description).to.equal('The reference to the service that hosts this API endpoint.');
      expect(table.columnDefinitions[2].description).to.equal('Whether this service is available.');
      const row = table.rows.find((r: Body) => r.cells[0] === 'v1.local.example.com');
      expect(row.cells.slice(0, 3)).to.deep.equal(['v1.local.example.com', 'Local', 'True']);
      const one = (await t.get(path('v1.remote.example.com'), TABLE)).body;
      expect(one.rows[0].cells.slice(0, 2)).to.deep.equal(['v1.remote.example.com', 'ext/api']);
    });
  });
});
