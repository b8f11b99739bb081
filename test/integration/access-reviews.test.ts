/**
 * The access reviews (authorization.orch.io/v1) over HTTPS: SubjectAccessReview,
 * LocalSubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview answered from the
 * --authorization-mode chain: allowed with RBAC's reason, no opinion, denied by a webhook, a
 * mode's error as evaluationError, rules of a Role and a ClusterRoleBinding, `incomplete` with a
 * mode that cannot list rules; who may create each review; Kubernetes' 400/422 messages.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { TokenWebhook, WebhookRequest, startTokenWebhook } from '../helpers/token-webhook';
import { decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';
import { ApiObject } from '../../lib/scheme/types';

const AUTHZ = 'authorization.orch.io';
const API = `/apis/${AUTHZ}/v1`;
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const G = 'rbac.authorization.orch.io';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
type Identity = { certPem: string; keyPem: string };

const review = (kind: string, spec: unknown, metadata?: unknown) => ({ apiVersion: `${AUTHZ}/v1`, kind, ...(metadata ? { metadata } : {}), spec });
const sar = (spec: unknown, metadata?: unknown) => review('SubjectAccessReview', spec, metadata);
const ssar = (spec: unknown) => review('SelfSubjectAccessReview', spec);
const lsar = (spec: unknown, metadata?: unknown) => review('LocalSubjectAccessReview', spec, metadata);
const ssrr = (namespace?: string) => review('SelfSubjectRulesReview', namespace === undefined ? {} : { namespace });
const podsIn = (namespace: string, verb = 'get', extra: Record<string, string> = {}) => ({ namespace, verb, resource: 'pods', ...extra });

async function must(r: Promise<HttpResponse>): Promise<HttpResponse> {
  const res = await r;
  if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
  return res;
}

/** The policy of these tests, created by the admin through the API. */
async function createPolicy(t: TestServer): Promise<void> {
  const subject = (kind: string, name: string) => ({ kind, name, apiGroup: G });
  const clusterRole = (name: string, rules: unknown[]) => must(t.post(`${RBAC}/clusterroles`, { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name }, rules }));
  const clusterBinding = (name: string, role: string, subjects: unknown[]) => must(t.post(`${RBAC}/clusterrolebindings`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: role }, subjects,
  }));
  const binding = (name: string, kind: string, role: string, subjects: unknown[]) => must(t.post(`${RBAC}/namespaces/team/rolebindings`, {
    apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind, name: role }, subjects,
  }));
  for (const ns of ['team', 'other']) await must(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  await must(t.post(`${RBAC}/namespaces/team/roles`, {
    apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'pod-reader' }, rules: [
      { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['app-config'], verbs: ['get'] },
    ],
  }));
  await clusterRole('sc-viewer', [
    { apiGroups: ['storage.orch.io'], resources: ['storageclasses'], verbs: ['get', 'list'] },
    { nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] },
  ]);
  await clusterRole('local-reviewer', [{ apiGroups: [AUTHZ], resources: ['localsubjectaccessreviews'], verbs: ['create'] }]);
  await binding('alice-reads', 'Role', 'pod-reader', [subject('User', 'alice')]);
  await binding('ghost', 'ClusterRole', 'missing', [subject('User', 'alice')]);
  await binding('lead-reviews', 'ClusterRole', 'local-reviewer', [subject('User', 'lead')]);
  await clusterBinding('viewers', 'sc-viewer', [subject('Group', 'viewers')]);
  await clusterRole('cm-lister', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
  await clusterBinding('masters-list', 'cm-lister', [subject('Group', 'system:masters')]);
}

describe('Access reviews', function () {
  this.timeout(120_000);

  describe('with --authorization-mode=RBAC', () => {
    let t: TestServer;
    let alice: Identity;
    let lead: Identity;
    const answer = async (body: unknown, path = `${API}/subjectaccessreviews`, identity?: Identity, headers?: Record<string, string>) => {
      const r = await t.post(path, body, { ...(identity ? { identity } : {}), headers });
      expect(r.status, r.text).to.equal(201);
      return r.body;
    };

    before(async () => {
      t = await startTestServer(['--authorization-mode=RBAC']);
      alice = t.identity('alice', ['viewers']);
      lead = t.identity('lead');
      await createPolicy(t);
      // The policy index follows the watch caches: wait until the last grants are seen.
      await eventually(async () => {
        const r = await t.post(`${API}/subjectaccessreviews`, sar({ user: 'lead', resourceAttributes: { namespace: 'team', verb: 'create', group: AUTHZ, resource: 'localsubjectaccessreviews' } }));
        const s = await t.post(`${API}/subjectaccessreviews`, sar({ user: 'x', groups: ['viewers'], nonResourceAttributes: { path: '/metrics', verb: 'get' } }));
        return r.body?.status?.allowed && s.body?.status?.allowed;
      });
    });
    after(async () => { await t?.stop(); });

    it('SubjectAccessReview allowed: 201 with metadata and spec echoed and RBAC\'s reason', async () => {
      const r = await t.post(`${API}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team', 'get', { name: 'web', version: '' }) }));
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.equal({
        apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null },
        spec: { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods', name: 'web' }, user: 'alice' },
        status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/team" of Role "pod-reader" to User "alice"' },
      });
    });

    it('SubjectAccessReview without a grant: not allowed, not denied (no opinion), with RBAC\'s missing role as the reason', async () => {
      const body = await answer(sar({ user: 'alice', resourceAttributes: podsIn('team', 'delete') }));
      expect(body.status).to.deep.equal({ allowed: false, reason: `RBAC: clusterrole.${G} "missing" not found` });
      const elsewhere = await answer(sar({ user: 'alice', resourceAttributes: podsIn('other') }));
      expect(elsewhere.status).to.deep.equal({ allowed: false });
    });

    it('SubjectAccessReview takes the user exactly as given: groups, subresources, resourceNames, non-resource URLs', async () => {
      const cases: Array<[unknown, boolean]> = [
        [{ groups: ['viewers'], resourceAttributes: { verb: 'list', group: 'storage.orch.io', resource: 'storageclasses' } }, true],
        [{ user: 'alice', resourceAttributes: { verb: 'list', group: 'storage.orch.io', resource: 'storageclasses' } }, false],
        [{ user: 'alice', resourceAttributes: podsIn('team', 'get', { subresource: 'log', name: 'web' }) }, true],
        [{ user: 'alice', resourceAttributes: podsIn('team', 'create', { subresource: 'eviction', name: 'web' }) }, false],
        [{ user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'app-config' } }, true],
        [{ user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'db-config' } }, false],
        [{ user: 'alice', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' } }, false],
        [{ user: 'v', groups: ['viewers'], nonResourceAttributes: { path: '/metrics', verb: 'get' } }, true],
        [{ user: 'v', groups: ['viewers'], nonResourceAttributes: { path: '/logs/kube.log', verb: 'get' } }, true],
        [{ user: 'v', groups: ['viewers'], nonResourceAttributes: { path: '/metrics', verb: 'post' } }, false],
        [{ user: 'v', groups: ['viewers'], nonResourceAttributes: { path: '/debug/pprof', verb: 'get' } }, false],
        // system:public-info-viewer (bootstrap policy) lets everyone, even unauthenticated, read /healthz.
        [{ user: 'system:anonymous', groups: ['system:unauthenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } }, true],
        [{ user: 'root', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'namespaces', name: 'team' } }, true],
      ];
      for (const [spec, allowed] of cases) {
        const body = await answer(sar(spec));
        expect(body.status.allowed, JSON.stringify(spec)).to.equal(allowed);
        expect(body.status.denied, JSON.stringify(spec)).to.equal(undefined);
      }
    });

    it('SubjectAccessReview is for those allowed to create it: a plain user is refused with Kubernetes\' 403', async () => {
      const r = await t.post(`${API}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team') }), { identity: alice });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal(`subjectaccessreviews.${AUTHZ} is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "${AUTHZ}" at the cluster scope`);
    });

    it('SelfSubjectAccessReview answers for the requester, and for the impersonated user', async () => {
      const mine = await answer(ssar({ resourceAttributes: podsIn('team', 'list') }), `${API}/selfsubjectaccessreviews`, alice);
      expect(mine).to.deep.equal({
        apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null },
        spec: { resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } },
        status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/team" of Role "pod-reader" to User "alice"' },
      });
      const selfAllowed = async (spec: unknown, opts: { identity?: Identity; headers?: Record<string, string> }) =>
        (await answer(ssar(spec), `${API}/selfsubjectaccessreviews`, opts.identity, opts.headers)).status.allowed;
      expect(await selfAllowed({ resourceAttributes: podsIn('other', 'list') }, { identity: alice })).to.equal(false);
      expect(await selfAllowed({ nonResourceAttributes: { path: '/metrics', verb: 'get' } }, { identity: alice })).to.equal(true);
      expect(await selfAllowed({ nonResourceAttributes: { path: '/metrics', verb: 'get' } }, { identity: lead })).to.equal(false);
      // The admin as itself may do anything; as alice (kubectl --as=alice) only what alice may.
      expect(await selfAllowed({ resourceAttributes: podsIn('other', 'delete') }, {})).to.equal(true);
      expect(await selfAllowed({ resourceAttributes: podsIn('team', 'delete') }, { headers: { 'Impersonate-User': 'alice' } })).to.equal(false);
      expect(await selfAllowed({ nonResourceAttributes: { path: '/logs/x', verb: 'get' } },
        { headers: { 'Impersonate-User': 'someone', 'Impersonate-Group': 'viewers' } })).to.equal(true);
    });

    it('protobuf both ways, as kubectl sends reviews: a "no", a SubjectAccessReview with every spec field, the rules review of can-i --list', async () => {
      const spec = {
        resourceAttributes: {
          namespace: 'team', verb: 'list', group: '', version: 'v1', resource: 'pods', subresource: '', name: '',
          fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
          labelSelector: { requirements: [{ key: 'app', operator: 'NotIn', values: ['db', 'cache'] }] },
        },
        user: 'alice', groups: ['viewers', 'system:authenticated'], uid: 'u-1',
        extra: { scopes: ['read', 'write'], 'example.org/team': ['blue'] },
      };
      const post = async (path: string, body: unknown) => {
        const r = await t.request('POST', path, {
          raw: encodeProtobuf(body as ApiObject), identity: path.includes('/self') ? alice : undefined,
          headers: { 'content-type': PROTOBUF, accept: `${PROTOBUF}, */*` },
        });
        expect(r.status, r.text).to.equal(201);
        expect(r.headers['content-type']).to.equal(PROTOBUF);
        return decodeProtobuf(r.raw!);
      };
      // What kubectl auth can-i sends; a "no" keeps allowed=false (a Go bool without omitempty).
      const no = await post(`${API}/selfsubjectaccessreviews`, ssar({ resourceAttributes: podsIn('team', 'patch') }));
      expect(no.kind).to.equal('SelfSubjectAccessReview');
      expect(no.spec).to.deep.equal({ resourceAttributes: { namespace: 'team', verb: 'patch', resource: 'pods' } });
      expect(no.status).to.deep.equal({ allowed: false, reason: `RBAC: clusterrole.${G} "missing" not found` });

      const answered = await post(`${API}/subjectaccessreviews`, sar(spec));
      // Go writes back only what is set: the empty strings are gone.
      const { group: _g, subresource: _s, name: _n, ...attributes } = spec.resourceAttributes;
      expect(answered.spec).to.deep.equal({ ...spec, resourceAttributes: attributes });
      expect(answered.status).to.deep.equal({ allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/team" of Role "pod-reader" to User "alice"' });

      const rules = await post(`${API}/selfsubjectrulesreviews`, ssrr('team'));
      const status = rules.status as { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean; evaluationError: string };
      expect(status.incomplete).to.equal(false);
      expect(status.evaluationError).to.equal(`clusterrole.${G} "missing" not found`);
      expect(status.resourceRules).to.deep.include({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['app-config'] });
      expect(status.nonResourceRules).to.deep.include({ verbs: ['get'], nonResourceURLs: ['/metrics', '/logs/*'] });
    });

    it('LocalSubjectAccessReview in its namespace: allowed for whom the namespace grants it, with the namespace echoed', async () => {
      const body = await answer(lsar({ user: 'alice', resourceAttributes: podsIn('team', 'watch') }), `${API}/namespaces/team/localsubjectaccessreviews`, lead);
      expect(body.metadata).to.deep.equal({ namespace: 'team', creationTimestamp: null });
      expect(body.status.allowed).to.equal(true);
      const no = await answer(lsar({ user: 'alice', resourceAttributes: podsIn('team', 'create') }), `${API}/namespaces/team/localsubjectaccessreviews`, lead);
      expect(no.status.allowed).to.equal(false);
      // lead's grant is a RoleBinding in team: not in other.
      const r = await t.post(`${API}/namespaces/other/localsubjectaccessreviews`, lsar({ user: 'alice', resourceAttributes: podsIn('other') }), { identity: lead });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal(`localsubjectaccessreviews.${AUTHZ} is forbidden: User "lead" cannot create resource "localsubjectaccessreviews" in API group "${AUTHZ}" in the namespace "other"`);
    });

    it('LocalSubjectAccessReview refuses another namespace in the spec or the body, and non-resource attributes', async () => {
      const path = `${API}/namespaces/team/localsubjectaccessreviews`;
      const other = await t.post(path, lsar({ user: 'alice', resourceAttributes: podsIn('other') }));
      expect(other.status).to.equal(422);
      expect(other.body.message).to.equal(`.${AUTHZ} "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`);
      expect(other.body.details).to.deep.equal({ group: AUTHZ, causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "other": must match metadata.namespace', field: 'spec.resourceAttributes.namespace' }] });
      const none = await t.post(path, lsar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } }));
      expect(none.status).to.equal(422);
      expect(none.body.message).to.equal(`.${AUTHZ} "" is invalid: spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace`);
      const nonResource = await t.post(path, lsar({ user: 'alice', nonResourceAttributes: { path: '/healthz', verb: 'get' } }));
      expect(nonResource.status).to.equal(422);
      expect(nonResource.body.message).to.equal(`.${AUTHZ} "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request`);
      const body = await t.post(path, lsar({ user: 'alice', resourceAttributes: podsIn('team') }, { namespace: 'other' }));
      expect(body.status).to.equal(400);
      expect(body.body.message).to.equal('the namespace of the provided object does not match the namespace sent on the request');
      const named = await t.post(path, lsar({ user: 'alice', resourceAttributes: podsIn('team') }, { namespace: 'team', name: 'x' }));
      expect(named.status).to.equal(422);
      expect(named.body.message).to.match(/^\.authorization\.orch\.io "" is invalid: metadata: Invalid value: .*: must be empty except for namespace$/);
    });

    it('SelfSubjectRulesReview lists a Role\'s rules in its namespace and a ClusterRoleBinding\'s everywhere, with the missing role as evaluationError', async () => {
      const body = await answer(ssrr('team'), `${API}/selfsubjectrulesreviews`, alice);
      expect(body.apiVersion).to.equal(`${AUTHZ}/v1`);
      expect(body.kind).to.equal('SelfSubjectRulesReview');
      expect(body.spec).to.deep.equal({});
      expect(body.status.incomplete).to.equal(false);
      expect(body.status.evaluationError).to.equal(`clusterrole.${G} "missing" not found`);
      expect(body.status.resourceRules).to.deep.include.members([
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['app-config'] },
        { verbs: ['get', 'list'], apiGroups: ['storage.orch.io'], resources: ['storageclasses'] },
        // Self reviews for every authenticated user: the bootstrap system:basic-user.
        { verbs: ['create'], apiGroups: [AUTHZ], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      ]);
      expect(body.status.nonResourceRules).to.deep.include.members([{ verbs: ['get'], nonResourceURLs: ['/metrics', '/logs/*'] }]);

      const other = await answer(ssrr('other'), `${API}/selfsubjectrulesreviews`, alice);
      expect(other.status.evaluationError).to.equal(undefined);
      const resources = other.status.resourceRules.flatMap((r: { resources: string[] }) => r.resources);
      expect(resources).to.include('storageclasses');
      expect(resources).to.not.include('pods');
    });

    it('SelfSubjectRulesReview of system:masters: only what RBAC binds to the group (the chain allows them before any mode)', async () => {
      const root = t.identity('root', ['system:masters']);
      expect((await answer(ssar({ resourceAttributes: podsIn('team', 'delete') }), `${API}/selfsubjectaccessreviews`, root)).status.allowed).to.equal(true);
      const body = await answer(ssrr('team'), `${API}/selfsubjectrulesreviews`, root);
      const resources = (body.status.resourceRules as Array<{ resources: string[] }>).flatMap((r) => r.resources);
      expect(resources).to.include('configmaps').and.to.not.include('pods');
      expect(body.status.incomplete).to.equal(false);
    });

    it('SelfSubjectRulesReview without a namespace is 400 "no namespace on request"', async () => {
      const r = await t.post(`${API}/selfsubjectrulesreviews`, ssrr(), { identity: alice });
      expect(r.status).to.equal(400);
      expect(r.body.message).to.equal('no namespace on request');
    });

    it('validation: exactly one of the attributes, a user or a group, empty metadata, well-formed selectors (422 with Kubernetes\' messages)', async () => {
      const invalid = async (path: string, body: unknown) => {
        const r = await t.post(path, body);
        expect(r.status, r.text).to.equal(422);
        expect(r.body.reason).to.equal('Invalid');
        return r.body.message as string;
      };
      const sarPath = `${API}/subjectaccessreviews`;
      expect(await invalid(sarPath, sar({}))).to.equal(`.${AUTHZ} "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]`);
      expect(await invalid(sarPath, sar({ user: 'a', resourceAttributes: podsIn('team'), nonResourceAttributes: { path: '/healthz', verb: 'get' } })))
        .to.equal(`.${AUTHZ} "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes`);
      expect(await invalid(sarPath, sar({ groups: [], resourceAttributes: podsIn('team') })))
        .to.equal(`.${AUTHZ} "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`);
      expect(await invalid(sarPath, sar({ user: 'a', resourceAttributes: podsIn('team') }, { name: 'mine' })))
        .to.match(/^\.authorization\.orch\.io "" is invalid: metadata: Invalid value: .*"name":"mine".*: must be empty$/);
      expect(await invalid(sarPath, sar({ user: 'a', resourceAttributes: { ...podsIn('team'), fieldSelector: {} } })))
        .to.equal(`.${AUTHZ} "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required`);
      expect(await invalid(sarPath, sar({ user: 'a', resourceAttributes: { ...podsIn('team'), labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'Exists', values: ['x'] }] } } })))
        .to.equal(`.${AUTHZ} "" is invalid: [spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements, spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist']`);
      expect(await invalid(`${API}/selfsubjectaccessreviews`, ssar({})))
        .to.equal(`.${AUTHZ} "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`);
      // A selector that is well-formed is accepted (and echoed); it can only narrow, so RBAC's answer stands.
      const narrowed = await answer(sar({ user: 'alice', resourceAttributes: { ...podsIn('team', 'list'), labelSelector: { rawSelector: 'app=web' } } }));
      expect(narrowed.spec.resourceAttributes.labelSelector).to.deep.equal({ rawSelector: 'app=web' });
      expect(narrowed.status.allowed).to.equal(true);
    });

    it('bad bodies are 400: wrong types, another kind, broken JSON, a bad dryRun; GET is 405; a namespaced path for a cluster review 404', async () => {
      const typed = await t.post(`${API}/subjectaccessreviews`, sar({ user: 5, resourceAttributes: podsIn('team') }));
      expect(typed.status).to.equal(400);
      expect(typed.body.message).to.match(/^SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal number 5 into Go struct field SubjectAccessReview\.spec\.user of type string$/);
      const kind = await t.post(`${API}/subjectaccessreviews`, ssar({ resourceAttributes: podsIn('team') }));
      expect(kind.status).to.equal(400);
      const junk = await t.request('POST', `${API}/selfsubjectaccessreviews`, { raw: '{"spec":', headers: { 'content-type': 'application/json' } });
      expect(junk.status).to.equal(400);
      expect((await t.get(`${API}/subjectaccessreviews`)).status).to.equal(405);
      expect((await t.post(`${API}/namespaces/team/subjectaccessreviews`, sar({ user: 'a', resourceAttributes: podsIn('team') }))).status).to.equal(404);
      expect((await t.post(`${API}/subjectaccessreviews?dryRun=Some`, sar({ user: 'alice', resourceAttributes: podsIn('team') }))).status).to.equal(400);
    });

    it('a dry run answers the same (nothing is stored either way)', async () => {
      expect((await answer(sar({ user: 'alice', resourceAttributes: podsIn('team') }), `${API}/subjectaccessreviews?dryRun=All`)).status.allowed).to.equal(true);
    });

    it('discovery lists the four reviews, create only, LocalSubjectAccessReview namespaced', async () => {
      const group = await t.get(API);
      const resources = group.body.resources as Array<{ name: string; namespaced: boolean; kind: string; verbs: string[] }>;
      expect(resources.map((r) => [r.name, r.namespaced, r.kind, r.verbs])).to.deep.equal([
        ['localsubjectaccessreviews', true, 'LocalSubjectAccessReview', ['create']],
        ['selfsubjectaccessreviews', false, 'SelfSubjectAccessReview', ['create']],
        ['selfsubjectrulesreviews', false, 'SelfSubjectRulesReview', ['create']],
        ['subjectaccessreviews', false, 'SubjectAccessReview', ['create']],
      ]);
    });
  });

  describe('with a chain of AlwaysDeny, RBAC and a Webhook', () => {
    let t: TestServer;
    let hook: TokenWebhook;
    before(async () => {
      hook = await startTokenWebhook({ path: '/authorize' });
      hook.reply = (req: WebhookRequest) => {
        const user = req.body?.spec?.user;
        const status = user === 'mallory' ? { allowed: false, denied: true, reason: 'mallory is blocked' }
          : user === 'wendy' ? { allowed: true, reason: 'the webhook knows wendy' } : { allowed: false };
        if (user === 'broken') return { status: 400, json: { message: 'no' } };
        return { json: { apiVersion: req.body.apiVersion, kind: 'SubjectAccessReview', status } };
      };
      const config = hook.writeFile('authz.kubeconfig', {
        apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
        clusters: [{ name: 'hook', cluster: { server: hook.url, 'certificate-authority-data': Buffer.from(hook.caPem).toString('base64') } }],
        users: [{ name: 'api', user: {} }], contexts: [{ name: 'c', context: { cluster: 'hook', user: 'api' } }],
      });
      t = await startTestServer(['--authorization-mode=AlwaysDeny,RBAC,Webhook', `--authorization-webhook-config-file=${config}`,
        '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=0s', '--authorization-webhook-cache-unauthorized-ttl=0s']);
      await createPolicy(t);
      await eventually(async () => {
        const r = await t.post(`${API}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team') }));
        return r.body?.status?.allowed;
      });
    });
    after(async () => { await t?.stop(); await hook?.stop(); });

    const status = async (spec: unknown) => {
      const r = await t.post(`${API}/subjectaccessreviews`, sar(spec));
      expect(r.status, r.text).to.equal(201);
      return r.body.status;
    };

    it('a mode that denies: allowed false and denied true, with its reason', async () => {
      expect(await status({ user: 'mallory', resourceAttributes: podsIn('team') })).to.deep.equal({ allowed: false, denied: true, reason: 'mallory is blocked' });
    });

    it('a later mode allows after earlier ones have no opinion; the first allow decides', async () => {
      expect(await status({ user: 'wendy', resourceAttributes: podsIn('team', 'delete') })).to.deep.equal({ allowed: true, reason: 'the webhook knows wendy' });
      const asked = hook.requests.length;
      expect((await status({ user: 'alice', resourceAttributes: podsIn('team') })).reason).to.match(/^RBAC: allowed by RoleBinding/);
      const sent = hook.requests.slice(asked).filter((r) => r.body?.spec?.user === 'alice');
      expect(sent, 'RBAC allowed alice before the webhook was asked').to.have.length(0);
    });

    it('no opinion from every mode: not allowed, not denied, the reasons joined', async () => {
      expect(await status({ user: 'nobody', resourceAttributes: podsIn('team') })).to.deep.equal({ allowed: false, reason: 'Everything is forbidden.' });
    });

    it('a mode that fails: the error as evaluationError, not a failed request', async () => {
      const s = await status({ user: 'broken', resourceAttributes: podsIn('team') });
      expect(s.allowed).to.equal(false);
      expect(s.denied).to.equal(undefined);
      expect(s.evaluationError).to.equal(`authorization webhook ${hook.url}: the webhook answered HTTP 400`);
    });

    it('SelfSubjectRulesReview is incomplete (the webhook cannot list rules) and says why; RBAC\'s rules are still listed', async () => {
      const r = await t.post(`${API}/selfsubjectrulesreviews`, ssrr('team'), { identity: t.identity('alice') });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.status.incomplete).to.equal(true);
      expect(r.body.status.evaluationError).to.equal(`[clusterrole.${G} "missing" not found, webhook authorizer does not support user rule resolution]`);
      expect(r.body.status.resourceRules).to.deep.include({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'] });
    });
  });

  describe('with --authorization-mode=Node,AlwaysAllow', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--authorization-mode=Node,AlwaysAllow']); });
    after(async () => { await t?.stop(); });

    it('AlwaysAllow answers yes to anyone, and lists everything as its rules; a node agent\'s list is incomplete', async () => {
      const anyone = t.identity('someone');
      const yes = await t.post(`${API}/selfsubjectaccessreviews`, ssar({ resourceAttributes: podsIn('team', 'delete') }), { identity: anyone });
      expect(yes.status).to.equal(201);
      expect(yes.body.status).to.deep.equal({ allowed: true });
      const rules = await t.post(`${API}/selfsubjectrulesreviews`, ssrr('default'), { identity: anyone });
      expect(rules.body.status).to.deep.equal({
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      });
      const node = await t.post(`${API}/selfsubjectrulesreviews`, ssrr('default'), { identity: t.identity('system:node:n1', ['system:nodes']) });
      expect(node.body.status.incomplete).to.equal(true);
      expect(node.body.status.evaluationError).to.equal('node authorizer does not support user rule resolution');
    });
  });
});
