/**
 * Benchmark admission: the cost of dynamic admission webhooks on the write path.
 * 1. Creates of ConfigMaps at c=64 (HTTP/2) with 20 webhook configurations that match nothing
 *    the benchmark writes (other resources, groups and operations: the index finds no candidate)
 *    against the same with none; the configurations are created and deleted between the rounds
 *    so both sides alternate on the same server. Issue 15's target: at least 0.95x.
 * 2. The added latency of one matching validating webhook that answers at once (a loopback HTTPS
 *    server in this process): creates at c=1 and c=64 in a namespace its namespaceSelector picks,
 *    against creates in a namespace it does not, in alternating rounds.
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { LoadWorkers } from './load-worker';
import { ApiClient } from './api-client';
import { AdmissionWebhookServer, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';

const NAME = 'admission';
const GROUP = 'admissionregistration.orch.io';
const PLAIN = 'bench-plain';
const HOOKED = 'bench-hooked';
const CONFIGS = 20;
const ROUNDS = 4;
const GENERATOR_THREADS = 2;
const SETTLE_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const createBody = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'made-' }, data: { payload: 'x'.repeat(256) } };
const collection = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** Webhook configuration `i` of 20, none matching a ConfigMap create (its URL is never called). */
function nonMatching(i: number): object {
  const rules = [
    { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'statefulsets'] },
    { operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets', 'pods/status'] },
    { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    { operations: ['*'], apiGroups: [`example-${i}.io`], apiVersions: ['*'], resources: ['*'] },
  ][i % 4];
  return {
    apiVersion: `${GROUP}/v1`, kind: i % 2 ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration', metadata: { name: `bench-other-${i}` },
    webhooks: [{ name: `other-${i}.bench.io`, clientConfig: { url: 'https://127.0.0.1:1/never' }, rules: [rules], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  };
}

const resourceOf = (i: number) => (i % 2 ? 'validatingwebhookconfigurations' : 'mutatingwebhookconfigurations');

async function installOthers(admin: ApiClient, on: boolean): Promise<void> {
  for (let i = 0; i < CONFIGS; i++) {
    const res = on
      ? await admin.request('POST', `/apis/${GROUP}/v1/${resourceOf(i)}`, nonMatching(i))
      : await admin.request('DELETE', `/apis/${GROUP}/v1/${resourceOf(i)}/bench-other-${i}`);
    if (res.status >= 300) throw new Error(`${on ? 'creating' : 'deleting'} webhook configuration ${i}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  }
  // The configurations reach the admission index through the watch cache: a moment.
  await sleep(SETTLE_MS);
}

async function measureNonMatching(ctx: BenchContext, admin: ApiClient): Promise<ResultRow[]> {
  const c = 64;
  const workers = new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(PLAIN)], createBody });
  try {
    ctx.log(`${NAME}: create c=${c}, ${CONFIGS} non-matching webhook configurations vs none: warming up`);
    await workers.loop({ durationMs: 0, maxIterations: 1000, minIterations: 1000, concurrency: c });
    const cellMs = ctx.quick ? 2_000 : 8_000;
    const rounds = ctx.quick ? 1 : ROUNDS;
    const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: c, concurrency: c };
    const results = { none: [] as LoopResult[], with: [] as LoopResult[] };
    for (let round = 0; round < rounds; round++) {
      results.none.push(await workers.loop(loop));
      await installOthers(admin, true);
      results.with.push(await workers.loop(loop));
      await installOthers(admin, false);
    }
    const none = mergeLoops(results.none);
    const withOthers = mergeLoops(results.with);
    const ratio = withOthers.opsPerSec / none.opsPerSec;
    const metric = `create c=${c} HTTP/2 with ${CONFIGS} non-matching webhook configurations vs none`;
    return [
      { benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: withOthers.opsPerSec, baseline: none.opsPerSec, ratio, ...target('≥ 0.95x', ratio >= 0.95),
        note: `${withOthers.count} vs ${none.count} creates` },
      { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: withOthers.p50, baseline: none.p50, ratio: none.p50 / withOthers.p50 },
      { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: withOthers.p99, baseline: none.p99, ratio: none.p99 / withOthers.p99 },
    ];
  } finally {
    await workers.close();
  }
}

async function measureMatching(ctx: BenchContext, admin: ApiClient, hooks: AdmissionWebhookServer): Promise<ResultRow[]> {
  const config = {
    apiVersion: `${GROUP}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench-matching' },
    webhooks: [{
      name: 'matching.bench.io', clientConfig: { url: hooks.url('/allow'), caBundle: hooks.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { hooked: 'yes' } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  };
  const res = await admin.request('POST', `/apis/${GROUP}/v1/validatingwebhookconfigurations`, config);
  if (res.status !== 201) throw new Error(`creating the matching webhook: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  await sleep(SETTLE_MS);
  const rows: ResultRow[] = [];
  for (const c of [1, 64]) {
    const threads = c === 1 ? 1 : GENERATOR_THREADS;
    const sides = {
      none: new LoadWorkers(threads, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(PLAIN)], createBody }),
      hooked: new LoadWorkers(threads, { conn: ctx.env.server, transport: 'HTTP/2', paths: [collection(HOOKED)], createBody }),
    };
    try {
      ctx.log(`${NAME}: create c=${c} with one matching validating webhook vs none`);
      const warm = { durationMs: 0, maxIterations: c === 1 ? 200 : 1000, minIterations: c === 1 ? 200 : 1000, concurrency: c };
      await sides.none.loop(warm);
      await sides.hooked.loop(warm);
      if (!hooks.callsTo('/allow').length) throw new Error('the matching webhook was never called');
      const cellMs = ctx.quick ? 2_000 : 8_000;
      const rounds = ctx.quick ? 1 : ROUNDS;
      const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: c, concurrency: c };
      const results = { none: [] as LoopResult[], hooked: [] as LoopResult[] };
      for (let round = 0; round < rounds; round++) {
        results.none.push(await sides.none.loop(loop));
        results.hooked.push(await sides.hooked.loop(loop));
        hooks.calls.length = 0;
      }
      const none = mergeLoops(results.none);
      const hooked = mergeLoops(results.hooked);
      const metric = `create c=${c} HTTP/2 with one matching validating webhook (answers at once) vs none`;
      rows.push(
        { benchmark: NAME, metric: `${metric} p50`, unit: 'ms', value: hooked.p50, baseline: none.p50, ratio: none.p50 / hooked.p50,
          note: `+${(hooked.p50 - none.p50).toFixed(2)} ms` },
        { benchmark: NAME, metric: `${metric} p99`, unit: 'ms', value: hooked.p99, baseline: none.p99, ratio: none.p99 / hooked.p99,
          note: `+${(hooked.p99 - none.p99).toFixed(2)} ms` },
        { benchmark: NAME, metric: `${metric} throughput`, unit: 'ops/s', value: hooked.opsPerSec, baseline: none.opsPerSec, ratio: hooked.opsPerSec / none.opsPerSec },
      );
    } finally {
      await sides.none.close();
      await sides.hooked.close();
    }
  }
  return rows;
}

export const admissionBench: Benchmark = {
  name: NAME,
  description: 'create at c=64 with 20 non-matching webhook configurations vs none; added latency of one matching validating webhook',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    for (const [name, labels] of [[PLAIN, {}], [HOOKED, { hooked: 'yes' }]] as const) {
      const res = await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
      if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status}`);
    }
    const hooks = await startAdmissionWebhookServer();
    try {
      const rows = await measureNonMatching(ctx, admin);
      rows.push(...await measureMatching(ctx, admin, hooks));
      return rows;
    } finally {
      await hooks.stop();
    }
  },
};
