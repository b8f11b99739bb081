/**
 * Benchmark authz: the cost of RBAC on the hot path. A service account bound to the `edit`
 * ClusterRole through a RoleBinding, with 1,000 other bindings in the cluster (500 RoleBindings
 * in the same namespace, 500 ClusterRoleBindings), against the admin (system:masters, allowed
 * before any rule is read): GET of a ConfigMap with resourceVersion=0 and create of ConfigMaps,
 * at concurrency 64 over one HTTP/2 session, both sides in alternating rounds. Both present a
 * client certificate (the account's user name and groups), so that the two sides differ only
 * in authorization (authentication's own cost is the authn benchmark's). Issue 14's target:
 * at least 0.9x. The last row is the RBAC decision itself, in-process, over the same policy.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { CpuAccumulator } from './cpu-usage';
import { LoadWorkers } from './load-worker';
import { ApiClient } from './api-client';
import { PolicyIndex } from '../../lib/authz/rbac/policy-index';
import { RbacAuthorizer } from '../../lib/authz/rbac/rbac-authorizer';
import { AuthorizationAttributes } from '../../lib/authz/attributes';

const NAME = 'authz';
const NAMESPACE = 'bench-authz';
const CONCURRENCY = 64;
const ROUNDS = 4;
const OBJECTS = 64;
const OTHER_BINDINGS = 1000;
const GENERATOR_THREADS = 2;
const RBAC = 'rbac.authorization.orch.io';
const ACCOUNT = `system:serviceaccount:${NAMESPACE}:editor`;
const ACCOUNT_GROUPS = ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`];

interface Sides { admin: LoadWorkers; account: LoadWorkers }

async function measure(ctx: BenchContext, label: string, sides: Sides): Promise<ResultRow[]> {
  ctx.log(`${NAME}: ${label}: warming up`);
  const warm = { durationMs: 0, maxIterations: 1000, minIterations: 1000, concurrency: CONCURRENCY };
  await sides.admin.loop(warm);
  await sides.account.loop(warm);
  const cellMs = ctx.quick ? 2_000 : 8_000;
  const rounds = ctx.quick ? 1 : ROUNDS;
  const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: CONCURRENCY, concurrency: CONCURRENCY };
  const results = { admin: [] as LoopResult[], account: [] as LoopResult[] };
  const cpu = { admin: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid), account: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid) };
  ctx.log(`${NAME}: ${label}: ${cellMs / 1000} s per side in ${rounds} round(s)`);
  for (let round = 0; round < rounds; round++) {
    for (const side of ['admin', 'account'] as const) {
      cpu[side].start();
      results[side].push(await sides[side].loop(loop));
      cpu[side].stop();
    }
  }
  const account = mergeLoops(results.account);
  const admin = mergeLoops(results.admin);
  const ratio = account.opsPerSec / admin.opsPerSec;
  const metric = `${label} c=${CONCURRENCY} HTTP/2, service account via RoleBinding to edit (+${OTHER_BINDINGS} bindings) vs admin`;
  const server = (s: 'admin' | 'account') => `${cpu[s].shares().server?.toFixed(0) ?? '?'}%`;
  return [
    {
      benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: account.opsPerSec, baseline: admin.opsPerSec, ratio,
      ...target('≥ 0.9x', ratio >= 0.9),
      note: `${account.count} vs ${admin.count} requests; server CPU of a core ${server('account')} vs ${server('admin')}`,
    },
    { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: account.p50, baseline: admin.p50, ratio: admin.p50 / account.p50 },
    { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: account.p99, baseline: admin.p99, ratio: admin.p99 / account.p99 },
  ];
}

const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, role: string, subject: object) => ({
  apiVersion: `${RBAC}/v1`, kind, metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects: [subject],
});

async function setUp(admin: ApiClient): Promise<void> {
  await admin.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
  const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  for (let i = 0; i < OBJECTS; i++) {
    await admin.json('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(1024) } }, 201);
  }
  await admin.json('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'editor' } }, 201);
  const rb = `/apis/${RBAC}/v1/namespaces/${NAMESPACE}/rolebindings`;
  const crb = `/apis/${RBAC}/v1/clusterrolebindings`;
  // The other bindings first, so that the account's binding is one among many in its namespace.
  for (let i = 0; i < OTHER_BINDINGS / 2; i++) {
    await admin.json('POST', rb, binding('RoleBinding', `other-${i}`, 'view', { kind: 'User', apiGroup: RBAC, name: `user-${i}` }), 201);
    await admin.json('POST', crb, binding('ClusterRoleBinding', `bench-other-${i}`, 'view', { kind: 'Group', apiGroup: RBAC, name: `team-${i}` }), 201);
  }
  await admin.json('POST', rb, binding('RoleBinding', 'editor-edit', 'edit', { kind: 'ServiceAccount', name: 'editor', namespace: NAMESPACE }), 201);
}

/** µs per RBAC decision: the account's get and create over the bench's policy, in-process. */
function decisionStep(iterations: number): number {
  const index = new PolicyIndex(RBAC);
  index.upsertClusterRole({ metadata: { name: 'view' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'pods', 'services'] }] });
  index.upsertClusterRole({ metadata: { name: 'edit' }, rules: [
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'services', 'endpoints'] },
    { verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'], apiGroups: [''], resources: ['configmaps', 'secrets', 'pods'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'secrets'] },
  ] });
  for (let i = 0; i < OTHER_BINDINGS / 2; i++) {
    index.upsertBinding(binding('RoleBinding', `other-${i}`, 'view', { kind: 'User', name: `user-${i}` }) as never);
    index.upsertBinding({ ...binding('ClusterRoleBinding', `c-${i}`, 'view', { kind: 'Group', name: `team-${i}` }), metadata: { name: `c-${i}` } } as never);
  }
  index.upsertBinding({ ...binding('RoleBinding', 'editor-edit', 'edit', { kind: 'ServiceAccount', name: 'editor', namespace: NAMESPACE }), metadata: { name: 'editor-edit', namespace: NAMESPACE } } as never);
  const rbac = new RbacAuthorizer(index);
  const user = { name: ACCOUNT, groups: [...ACCOUNT_GROUPS, 'system:authenticated'] };
  const base = { user, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource: 'configmaps', subresource: '', namespace: NAMESPACE };
  const asks: AuthorizationAttributes[] = [{ ...base, verb: 'get', name: 'cm-1' }, { ...base, verb: 'create', name: '' }];
  for (const a of asks) if (rbac.authorize(a).decision !== 'allow') throw new Error(`decision step: ${a.verb} not allowed`);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) rbac.authorize(asks[i & 1]);
  return Number(process.hrtime.bigint() - t0) / iterations / 1000;
}

export const authzBench: Benchmark = {
  name: NAME,
  description: 'get RV=0 and create at c=64 as a service account authorized by RBAC vs the admin (system:masters)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    ctx.log(`${NAME}: setting up ${OTHER_BINDINGS + 1} bindings`);
    await setUp(admin);
    const accountConn = ctx.env.connectionAs(ACCOUNT, ACCOUNT_GROUPS);
    const probe = new ApiClient(accountConn, 1);
    try {
      // The binding reaches the policy index through the watch cache: wait until it decides.
      for (let i = 0; ; i++) {
        const res = await probe.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/cm-0`);
        if (res.status === 200) break;
        if (i > 100) throw new Error(`the account is not allowed: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      probe.close();
    }
    const rows: ResultRow[] = [];
    const paths = Array.from({ length: OBJECTS }, (_, i) => `/api/v1/namespaces/${NAMESPACE}/configmaps/cm-${i}?resourceVersion=0`);
    const createBody = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'made-' }, data: { payload: 'x'.repeat(256) } };
    const collection = [`/api/v1/namespaces/${NAMESPACE}/configmaps`];
    for (const [label, setup] of [['get RV=0', { paths }], ['create', { paths: collection, createBody }]] as const) {
      const sides: Sides = {
        admin: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', ...setup }),
        account: new LoadWorkers(GENERATOR_THREADS, { conn: accountConn, transport: 'HTTP/2', ...setup }),
      };
      try {
        rows.push(...await measure(ctx, label, sides));
      } finally {
        await sides.admin.close();
        await sides.account.close();
      }
    }
    const us = decisionStep(ctx.quick ? 100_000 : 1_000_000);
    rows.push({
      benchmark: NAME, metric: `RBAC decision in-process, service account among ${OTHER_BINDINGS} other bindings`, unit: 'µs', value: us,
      note: 'RbacAuthorizer over a PolicyIndex: bindings looked up by the user\'s name and groups, never scanned',
    });
    return rows;
  },
};
