/**
 * networking/v1 Ingress over HTTPS against a real etcd: Kubernetes 1.32's validation (each bad
 * spec or status answered 422 with the cause's field path, reason and message, and nothing
 * stored), status cleared on create and written only through /status (which keeps the spec),
 * generation bumped by spec changes only, the deprecated class annotation (warned; must match
 * spec.ingressClassName), kubectl's table cells, and the DefaultIngressClass admission plugin.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'ingresses';
type Body = Record<string, any>;
const DNS1123 = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const WILDCARD = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const svc = (name = 'web', port: Body = { number: 80 }): Body => ({ service: { name, port } });
const rule = (host: string | undefined, paths: Body[]): Body => ({ ...(host === undefined ? {} : { host }), http: { paths } });
const prefix = (path: string, backend: Body = svc()): Body => ({ path, pathType: 'Prefix', backend });

describe('Ingress (networking/v1)', () => {
  let t: TestServer;
  let group: string;
  let classAnnotation: string;
  let defaultAnnotation: string;
  const path = (name = '') => `/apis/${group}/v1/namespaces/${NS}/ingresses${name ? `/${name}` : ''}`;
  const classes = (name = '') => `/apis/${group}/v1/ingressclasses${name ? `/${name}` : ''}`;
  const ingress = (name: string, spec: Body, metadata: Body = {}): Body =>
    ({ apiVersion: `${group}/v1`, kind: 'Ingress', metadata: { name, ...metadata }, spec });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => {
    expectInvalidCauses(res, 'Ingress', causes);
    expect(res.body.details).to.include({ group });
  };

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('networking');
    classAnnotation = `${t.server.naming.labelDomain}/ingress.class`;
    defaultAnnotation = `ingressclass.${t.server.naming.labelDomain}/is-default-class`;
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('validation (ValidateIngressCreate)', () => {
    const valid: Array<[string, Body]> = [
      ['a default backend alone', { defaultBackend: svc('web', { name: 'http' }) }],
      ['a wildcard host', { rules: [rule('*.example.com', [prefix('/')])] }],
      ['a rule without host or http', { defaultBackend: svc(), rules: [{}] }],
      ['an Exact path', { rules: [rule('a.example.com', [{ path: '/exact', pathType: 'Exact', backend: svc() }])] }],
      ['an ImplementationSpecific path without path', { rules: [rule(undefined, [{ pathType: 'ImplementationSpecific', backend: svc() }])] }],
      ['a resource backend', { defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } } }],
      ['TLS with wildcard hosts', { defaultBackend: svc(), tls: [{ hosts: ['*.example.com', 'a.example.com'], secretName: 'tls-cert' }] }],
    ];
    valid.forEach(([what, spec], i) => {
      it(`accepts ${what}`, async () => {
        const res = await t.post(path(), ingress(`valid-${i}`, spec));
        expect(res.status, res.text).to.equal(201);
        expect(res.body.spec).to.deep.equal(spec);
      });
    });

    const bp = 'spec.rules[0].http.paths[0]';
    const invalid: Array<[string, Body, Cause[], Body?]> = [
      ['neither defaultBackend nor rules', {}, [
        { field: 'spec', reason: 'FieldValueInvalid', message: 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified' }]],
      ['an IP as host', { rules: [rule('10.0.0.1', [prefix('/')])] }, [
        { field: 'spec.rules[0].host', reason: 'FieldValueInvalid', message: 'Invalid value: "10.0.0.1": must be a DNS name, not an IP address' }]],
      ['an upper-case host', { rules: [rule('Foo.com', [prefix('/')])] }, [
        { field: 'spec.rules[0].host', reason: 'FieldValueInvalid', message: `Invalid value: "Foo.com": ${DNS1123}` }]],
      ['a wildcard not in front', { rules: [rule('foo.*.com', [prefix('/')])] }, [
        { field: 'spec.rules[0].host', reason: 'FieldValueInvalid', message: `Invalid value: "foo.*.com": ${WILDCARD}` }]],
      ['http without paths', { rules: [{ host: 'a.com', http: { paths: [] } }] }, [
        { field: 'spec.rules[0].http.paths', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a path without pathType', { rules: [rule('a.com', [{ path: '/', backend: svc() }])] }, [
        { field: `${bp}.pathType`, reason: 'FieldValueRequired', message: 'Required value: pathType must be specified' }]],
      ['an unknown pathType', { rules: [rule('a.com', [{ path: '/', pathType: 'Regex', backend: svc() }])] }, [
        { field: `${bp}.pathType`, reason: 'FieldValueNotSupported', message: 'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"' }]],
      ['a relative Prefix path', { rules: [rule('a.com', [prefix('foo')])] }, [
        { field: `${bp}.path`, reason: 'FieldValueInvalid', message: 'Invalid value: "foo": must be an absolute path' }]],
      ['a Prefix path with //', { rules: [rule('a.com', [prefix('/a//b')])] }, [
        { field: `${bp}.path`, reason: 'FieldValueInvalid', message: 'Invalid value: "/a//b": must not contain \'//\'' }]],
      ['a Prefix path ending in /..', { rules: [rule('a.com', [prefix('/a/..')])] }, [
        { field: `${bp}.path`, reason: 'FieldValueInvalid', message: 'Invalid value: "/a/..": cannot end with \'/..\'' }]],
      ['an Exact path with %2F', { rules: [rule('a.com', [{ path: '/a%2Fb', pathType: 'Exact', backend: svc() }])] }, [
        { field: `${bp}.path`, reason: 'FieldValueInvalid', message: 'Invalid value: "/a%2Fb": must not contain \'%2F\'' }]],
      ['a relative ImplementationSpecific path', { rules: [rule('a.com', [{ path: 'x', pathType: 'ImplementationSpecific', backend: svc() }])] }, [
        { field: `${bp}.path`, reason: 'FieldValueInvalid', message: 'Invalid value: "x": must be an absolute path' }]],
      ['both service and resource', { defaultBackend: { ...svc(), resource: { kind: 'K', name: 'n' } } }, [
        { field: 'spec.defaultBackend', reason: 'FieldValueInvalid', message: 'Invalid value: "": cannot set both resource and service backends' }]],
      ['an empty backend', { defaultBackend: {} }, [
        { field: 'spec.defaultBackend', reason: 'FieldValueInvalid', message: 'Invalid value: "": resource or service backend is required' }]],
      ['port name and number', { defaultBackend: svc('web', { name: 'http', number: 80 }) }, [
        { field: 'spec.defaultBackend', reason: 'FieldValueInvalid', message: 'Invalid value: "": cannot set both port name & port number' }]],
      ['no port', { defaultBackend: svc('web', {}) }, [
        { field: 'spec.defaultBackend', reason: 'FieldValueRequired', message: 'Required value: port name or number is required' }]],
      ['a port number out of range', { defaultBackend: svc('web', { number: 70000 }) }, [
        { field: 'spec.defaultBackend.service.port.number', reason: 'FieldValueInvalid', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }]],
      ['a bad port name', { defaultBackend: svc('web', { name: 'HTTP' }) }, [
        { field: 'spec.defaultBackend.service.port.name', reason: 'FieldValueInvalid', message: 'Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)' },
        { field: 'spec.defaultBackend.service.port.name', reason: 'FieldValueInvalid', message: 'Invalid value: "HTTP": must contain at least one letter (a-z)' }]],
      ['a service without name', { defaultBackend: svc('', { number: 80 }) }, [
        { field: 'spec.defaultBackend.service.name', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a service name that is no DNS-1035 label', { defaultBackend: svc('1web', { number: 80 }) }, [
        { field: 'spec.defaultBackend.service.name', reason: 'FieldValueInvalid', message: `Invalid value: "1web": ${DNS1035}` }]],
      ['a resource backend without kind and name', { defaultBackend: { resource: { apiGroup: 'x.com' } } }, [
        { field: 'spec.defaultBackend.resource.kind', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.defaultBackend.resource.name', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a bad TLS host', { defaultBackend: svc(), tls: [{ hosts: ['Bad_Host'] }] }, [
        { field: 'spec.tls[0].hosts[0]', reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Host": ${DNS1123}` }]],
      ['a bad TLS secret name', { defaultBackend: svc(), tls: [{ secretName: 'Bad' }] }, [
        { field: 'spec.tls[0].secretName', reason: 'FieldValueInvalid', message: `Invalid value: "Bad": ${DNS1123}` }]],
      ['a bad ingressClassName', { defaultBackend: svc(), ingressClassName: 'Nginx' }, [
        { field: 'spec.ingressClassName', reason: 'FieldValueInvalid', message: `Invalid value: "Nginx": ${DNS1123}` }]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), ingress(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
      });
    });

    it('refuses a class annotation that differs from spec.ingressClassName', async () => {
      const res = await rejectedLeavingStore(t, path(), () => t.post(path(),
        ingress('annotated-differs', { defaultBackend: svc(), ingressClassName: 'nginx' }, { annotations: { [classAnnotation]: 'traefik' } })));
      expectInvalid(res, [{ field: `annotations.${classAnnotation}`, reason: 'FieldValueInvalid', message: 'Invalid value: "traefik": must match `ingressClassName` when both are specified' }]);
    });

    it('accepts the annotation alone, with Kubernetes\' deprecation warning', async () => {
      const res = await t.post(path(), ingress('annotated', { defaultBackend: svc() }, { annotations: { [classAnnotation]: 'nginx' } }));
      expect(res.status, res.text).to.equal(201);
      expect(String(res.headers.warning)).to.include(`annotation \\"${classAnnotation}\\" is deprecated, please use 'spec.ingressClassName' instead`);
    });
  });

  describe('status and generation', () => {
    const spec = { rules: [rule('app.example.com', [prefix('/')])] };
    it('clears the status on create, bumps generation on spec changes only, and keeps the status on main updates', async () => {
      const created = await t.post(path(), ingress('lb', spec, {}), {});
      expect(created.status, created.text).to.equal(201);
      expect(created.body.metadata.generation).to.equal(1);
      expect(created.body.status).to.deep.equal({ loadBalancer: {} });
      const withStatus = await t.post(path(), { ...ingress('lb-status', spec), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
      expect(withStatus.body.status).to.deep.equal({ loadBalancer: {} });

      const lb = { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'lb.example.com', ports: [{ port: 443, protocol: 'TCP' }] }] } };
      const st = await mergePatch(t, `${path('lb')}/status`, { status: lb, spec: { rules: [rule('other.example.com', [prefix('/')])] } });
      expect(st.status, st.text).to.equal(200);
      expect(st.body.status).to.deep.equal(lb);
      expect(st.body.spec).to.deep.equal(spec);
      expect(st.body.metadata.generation).to.equal(1);

      const main = await mergePatch(t, path('lb'), { status: { loadBalancer: {} }, spec: { tls: [{ hosts: ['app.example.com'], secretName: 'app-tls' }] } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status).to.deep.equal(lb);
      expect(main.body.metadata.generation).to.equal(2);
      const label = await mergePatch(t, path('lb'), { metadata: { labels: { a: 'b' } } });
      expect(label.body.metadata.generation).to.equal(2);
    });

    it('validates status writes (IPs, hostnames) and stores nothing on refusal', async () => {
      await t.post(path(), ingress('lb-bad', spec));
      const res = await rejectedLeavingStore(t, path(), () => mergePatch(t, `${path('lb-bad')}/status`,
        { status: { loadBalancer: { ingress: [{ ip: '300.1.1.1' }, { hostname: '10.1.2.3' }] } } }));
      expectInvalid(res, [
        { field: 'status.loadBalancer.ingress[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "300.1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
        { field: 'status.loadBalancer.ingress[1].hostname', reason: 'FieldValueInvalid', message: 'Invalid value: "10.1.2.3": must be a DNS name, not an IP address' },
      ]);
    });

    it('validates updates as it validates creates', async () => {
      await t.post(path(), ingress('upd', spec));
      const res = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('upd'), { spec: { rules: [rule('a.com', [prefix('rel')])] } }));
      expectInvalid(res, [{ field: 'spec.rules[0].http.paths[0].path', reason: 'FieldValueInvalid', message: 'Invalid value: "rel": must be an absolute path' }]);
    });
  });

  describe('table (printIngress)', () => {
    it('prints NAME CLASS HOSTS ADDRESS PORTS AGE as kubectl does', async () => {
      await t.post(path(), ingress('tbl-many', {
        ingressClassName: 'nginx', tls: [{ hosts: ['a.example.com'] }],
        rules: ['a', 'b', 'c', 'd', 'e'].map((h) => rule(`${h}.example.com`, [prefix('/')])),
      }));
      await mergePatch(t, `${path('tbl-many')}/status`, { status: { loadBalancer: { ingress: [{ ip: '192.0.2.2' }, { hostname: 'lb.example.com' }, { ip: '192.0.2.1' }, { ip: '192.0.2.1' }] } } });
      await t.post(path(), ingress('tbl-star', { rules: [rule(undefined, [prefix('/')])] }));
      const res = await t.get(path(), TABLE);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
      const rows = new Map<string, unknown[]>(res.body.rows.map((r: Body) => [r.cells[0], r.cells]));
      expect(rows.get('tbl-many')!.slice(0, 5)).to.deep.equal(['tbl-many', 'nginx', 'a.example.com,b.example.com,c.example.com + 2 more...', '192.0.2.1,192.0.2.2,lb.example.com', '80, 443']);
      expect(rows.get('tbl-star')!.slice(0, 5)).to.deep.equal(['tbl-star', '<none>', '*', '', '80']);
    });

    it('has the short name ing and no category (kubectl get all leaves Ingresses out) in discovery', async () => {
      const res = await t.get(`/apis/${group}/v1`);
      const r = res.body.resources.find((x: Body) => x.name === 'ingresses');
      expect(r).to.include({ kind: 'Ingress', namespaced: true });
      expect(r.shortNames).to.deep.equal(['ing']);
      expect(r.categories ?? []).to.deep.equal([]);
      expect(res.body.resources.map((x: Body) => x.name)).to.include('ingresses/status');
    });
  });

  describe('DefaultIngressClass admission', () => {
    const klass = (name: string, isDefault: boolean): Body => ({
      apiVersion: `${group}/v1`, kind: 'IngressClass',
      metadata: { name, ...(isDefault ? { annotations: { [defaultAnnotation]: 'true' } } : {}) }, spec: { controller: 'example.com/ingress' },
    });

    it('leaves the class unset when no class is default', async () => {
      expect((await t.post(classes(), klass('plain', false))).status).to.equal(201);
      const res = await t.post(path(), ingress('dic-none', { defaultBackend: svc() }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.ingressClassName).to.equal(undefined);
    });

    it('sets the default class on create; keeps an explicit class, the annotation, and updates unchanged', async () => {
      expect((await t.post(classes(), klass('house', true))).status).to.equal(201);
      const res = await t.post(path(), ingress('dic-default', { defaultBackend: svc() }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.ingressClassName).to.equal('house');
      expect((await t.get(path('dic-default'))).body.spec.ingressClassName).to.equal('house');

      const explicit = await t.post(path(), ingress('dic-explicit', { defaultBackend: svc(), ingressClassName: 'plain' }));
      expect(explicit.body.spec.ingressClassName).to.equal('plain');
      const annotated = await t.post(path(), ingress('dic-annotated', { defaultBackend: svc() }, { annotations: { [classAnnotation]: 'legacy' } }));
      expect(annotated.status, annotated.text).to.equal(201);
      expect(annotated.body.spec.ingressClassName).to.equal(undefined);

      // An update that drops the class is not defaulted again.
      const current = (await t.get(path('dic-default'))).body;
      delete current.spec.ingressClassName;
      const updated = await t.put(path('dic-default'), current);
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.spec.ingressClassName).to.equal(undefined);
    });

    it('refuses the create (403) when several classes are default, storing nothing', async () => {
      expect((await t.post(classes(), klass('house-two', true))).status).to.equal(201);
      const res = await rejectedLeavingStore(t, path(), () => t.post(path(), ingress('dic-two', { defaultBackend: svc() })));
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.include({ reason: 'Forbidden' });
      expect(res.body.message).to.equal(`ingresses.${group} "dic-two" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed`);
      // With a class named, several defaults do not matter.
      expect((await t.post(path(), ingress('dic-two-named', { defaultBackend: svc(), ingressClassName: 'plain' }))).status).to.equal(201);
      expect((await t.del(classes('house-two'))).status).to.equal(200);
    });
  });
});
