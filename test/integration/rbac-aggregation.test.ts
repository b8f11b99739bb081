/**
 * ClusterRole aggregation through the real server: a ClusterRole with an aggregationRule gets the
 * union of the rules of the ClusterRoles its selectors match (selector by selector, roles by
 * name, each rule once), and follows them as they are created, relabelled, changed and deleted.
 * The aggregated rules are what RBAC then grants.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';

const G = 'rbac.authorization.orch.io';
const CR = `/apis/${G}/v1/clusterroles`;
const LABEL = 'example.com/aggregate-to-agg';
type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };

const clusterRole = (name: string, rules: Rule[], labels?: Record<string, string>) =>
  ({ apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules });
const get = (resource: string, verbs = ['get']): Rule => ({ apiGroups: [''], resources: [resource], verbs });

describe('ClusterRole aggregation', function () {
  this.timeout(120_000);
  let t: TestServer;

  const must = async (r: Promise<HttpResponse>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`${res.status} ${res.text}`);
    return res;
  };
  const rulesOf = async (name: string): Promise<Rule[]> => (await must(t.get(`${CR}/${name}`))).body.rules ?? [];
  /** Waits until the aggregate's rules are `want` (the last seen rules in the failure). */
  const aggregateBecomes = async (want: Rule[]) => {
    let seen: Rule[] = [];
    try {
      await eventually(async () => { seen = await rulesOf('agg'); return JSON.stringify(seen) === JSON.stringify(want); }, 10_000, 50);
    } catch {
      expect(seen).to.deep.equal(want);
    }
  };
  const patchLabels = (name: string, labels: Record<string, string | null>) => must(t.request('PATCH', `${CR}/${name}`, {
    raw: JSON.stringify({ metadata: { labels } }), headers: { 'content-type': 'application/merge-patch+json' },
  }));

  before(async () => {
    t = await startTestServer(['--authorization-mode=RBAC']);
    await must(t.post(CR, {
      ...clusterRole('agg', []),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [LABEL]: 'true' } }, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['extra'] }] }] },
    }));
  });
  after(async () => { await t?.stop(); });

  it('takes the rules of a matching ClusterRole as it appears', async () => {
    await must(t.post(CR, clusterRole('b-part', [get('pods'), get('configmaps')], { [LABEL]: 'true' })));
    await aggregateBecomes([get('pods'), get('configmaps')]);
  });

  it('orders by matching role name within a selector, then by selector, and keeps each rule once', async () => {
    await must(t.post(CR, clusterRole('c-extra', [get('secrets', ['list']), get('pods')], { tier: 'extra' })));
    await must(t.post(CR, clusterRole('a-part', [get('configmaps')], { [LABEL]: 'true' })));
    await aggregateBecomes([get('configmaps'), get('pods'), get('secrets', ['list'])]);
  });

  it('grants what it aggregated through a binding to it', async () => {
    const carol = t.identity('carol');
    await must(t.post(`/apis/${G}/v1/clusterrolebindings`, {
      apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'carol-agg' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'agg' }, subjects: [{ kind: 'User', apiGroup: G, name: 'carol' }],
    }));
    await eventually(async () => (await t.get('/api/v1/namespaces/default/configmaps/none', { identity: carol })).status === 404);
    expect((await t.get('/api/v1/namespaces/default/services/none', { identity: carol })).status).to.equal(403);
  });

  it('follows a change of a matching role\'s rules', async () => {
    const current = (await must(t.get(`${CR}/a-part`))).body;
    await must(t.put(`${CR}/a-part`, { ...current, rules: [get('configmaps', ['get', 'list']), get('services')] }));
    await aggregateBecomes([get('configmaps', ['get', 'list']), get('services'), get('pods'), get('configmaps'), get('secrets', ['list'])]);
  });

  it('drops the rules of a role whose label no longer matches', async () => {
    await patchLabels('b-part', { [LABEL]: null });
    await aggregateBecomes([get('configmaps', ['get', 'list']), get('services'), get('secrets', ['list']), get('pods')]);
  });

  it('drops the rules of a deleted role', async () => {
    await must(t.del(`${CR}/a-part`));
    await aggregateBecomes([get('secrets', ['list']), get('pods')]);
  });

  it('puts back rules edited by hand, and never includes its own', async () => {
    const current = (await must(t.get(`${CR}/agg`))).body;
    await must(t.put(`${CR}/agg`, { ...current, metadata: { ...current.metadata, labels: { tier: 'extra' } }, rules: [get('nodes')] }));
    await aggregateBecomes([get('secrets', ['list']), get('pods')]);
  });

  it('does not write the aggregate when nothing it gathers changed', async () => {
    const before = (await must(t.get(`${CR}/agg`))).body.metadata.resourceVersion;
    await must(t.post(CR, clusterRole('unrelated', [get('nodes')])));
    await patchLabels('unrelated', { other: 'x' });
    // The change has reached the controller once a later one shows in the aggregate.
    await must(t.post(CR, clusterRole('d-extra', [get('endpoints')], { tier: 'extra' })));
    await aggregateBecomes([get('secrets', ['list']), get('pods'), get('endpoints')]);
    const after = (await must(t.get(`${CR}/agg`))).body.metadata.resourceVersion;
    expect(Number(after)).to.be.greaterThan(Number(before));
    // Exactly one write since: for d-extra.
    const history = await must(t.get(`${CR}?watch=1&resourceVersion=${before}&timeoutSeconds=1&fieldSelector=metadata.name%3Dagg`));
    const events = history.text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'MODIFIED')).to.have.length(1);
  });

  it('empties the rules when nothing matches any more', async () => {
    await must(t.del(`${CR}/c-extra`));
    await must(t.del(`${CR}/d-extra`));
    await aggregateBecomes([]);
  });
});
