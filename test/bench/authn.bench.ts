/**
 * Benchmark authn: the cost of authentication on the hot path. GET of a ConfigMap with
 * resourceVersion=0 (served from the watch cache) at concurrency 64, once presenting a
 * service-account token (a bearer JWT of ~900 bytes on every request, as a pod's client does) and
 * once with the admin client certificate (verified once per connection), in alternating rounds in
 * the same run; over one HTTP/2 session (as client-go) and over 64 HTTP/1.1 keep-alive
 * connections. Issue 13's target: the token side at least 0.9x the certificate side.
 * Both transports are bound by this Node load generator, each in its own way (see docs/performance.md);
 * the last row measures the server's own step in-process: the production authentication chain
 * answering a cached token against a connection's certificate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from 'koa';
import { parseFlags } from '../../lib/server/flags';
import { flavors } from '../../lib/naming';
import { buildAuthentication } from '../../lib/authn/build';
import { CertificatePool } from '../../lib/authn/cert-pool';
import { authnRequestOf } from '../../lib/authn/request';
import { isPromise } from '../../lib/authn/authenticator';
import { loadServiceAccountKeys } from '../../lib/serviceaccount/keys';
import { claimNames } from '../../lib/serviceaccount/claims';
import { TokenGenerator } from '../../lib/serviceaccount/token-generator';
import { createTestCa, fakeTlsSocket, issueTestCert } from '../helpers/test-ca';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops } from './latency';
import { CpuAccumulator } from './cpu-usage';
import { LoadWorkers } from './load-worker';
import { ApiClient } from './api-client';

const NAME = 'authn';
const NAMESPACE = 'bench-authn';
const CONCURRENCY = 64;
const ROUNDS = 4;
const OBJECTS = 64;
const GENERATOR_THREADS = 2;

/** One transport's two sides: loops of GETs with the admin certificate, with the token. */
interface Transport { name: string; certificate: LoadWorkers; token: LoadWorkers }

/** Both sides of one transport in alternating rounds (drift weighs on both alike). */
async function measure(ctx: BenchContext, t: Transport): Promise<ResultRow[]> {
  ctx.log(`${NAME}: ${t.name}: warming up`);
  const warm = { durationMs: 0, maxIterations: 2000, minIterations: 2000, concurrency: CONCURRENCY };
  await t.certificate.loop(warm);
  await t.token.loop(warm);
  const cellMs = ctx.quick ? 2_000 : 10_000;
  const rounds = ctx.quick ? 1 : ROUNDS;
  const loop: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: CONCURRENCY, concurrency: CONCURRENCY };
  const results = { certificate: [] as LoopResult[], token: [] as LoopResult[] };
  const cpu = { certificate: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid), token: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid) };
  ctx.log(`${NAME}: ${t.name}: get RV=0 c=${CONCURRENCY}, ${cellMs / 1000} s per side in ${rounds} round(s)`);
  for (let round = 0; round < rounds; round++) {
    for (const side of ['certificate', 'token'] as const) {
      cpu[side].start();
      results[side].push(await t[side].loop(loop));
      cpu[side].stop();
    }
  }
  const token = mergeLoops(results.token);
  const cert = mergeLoops(results.certificate);
  const ratio = token.opsPerSec / cert.opsPerSec;
  const label = `get RV=0 c=${CONCURRENCY} ${t.name}, service-account token vs admin certificate`;
  const shares = (s: 'certificate' | 'token') => `server ${cpu[s].shares().server?.toFixed(0) ?? '?'}%, load generator ${cpu[s].shares().generator.toFixed(0)}%`;
  return [
    {
      benchmark: NAME, metric: `${label} throughput`, unit: 'ops/s', value: token.opsPerSec, baseline: cert.opsPerSec, ratio,
      ...target('≥ 0.9x', ratio >= 0.9),
      note: `${token.count} vs ${cert.count} gets; CPU of a core: ${shares('token')} with the token; ${shares('certificate')} with the certificate`,
    },
    { benchmark: NAME, metric: `${label} p50`, unit: 'ms', value: token.p50, baseline: cert.p50, ratio: cert.p50 / token.p50 },
    { benchmark: NAME, metric: `${label} p99`, unit: 'ms', value: token.p99, baseline: cert.p99, ratio: cert.p99 / token.p99 },
  ];
}



/** µs per authentication of a request on an open connection, with a token and with a certificate. */
async function authenticationStep(iterations: number): Promise<{ token: number; certificate: number }> {
  const naming = flavors.orch;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-authn-'));
  try {
    const keys = await loadServiceAccountKeys({ signingKeyFile: '', keyFiles: [], pkiDir: dir });
    const issuer = naming.defaultServiceAccountIssuer;
    const generator = new TokenGenerator(keys.signing, issuer, claimNames(naming));
    const account = { metadata: { name: 'reader', namespace: 'bench', uid: 'bench-uid' } };
    const ca = createTestCa('bench-ca');
    const authn = await buildAuthentication({
      config: parseFlags([]), naming, clientCa: CertificatePool.fromPem(ca.certPem, 'bench'), issuers: [issuer], apiAudiences: [issuer],
      verificationKeys: keys.verification, claimNames: claimNames(naming),
      lookups: { serviceAccounts: { get: () => account }, pods: { get: () => undefined }, secrets: { get: () => undefined } },
      warn: () => undefined,
    });
    const { token } = await generator.bound({ namespace: 'bench', serviceAccount: { name: 'reader', uid: 'bench-uid' }, audiences: [issuer], expirationSeconds: 3600 });
    const tokenSocket = fakeTlsSocket();
    const certSocket = fakeTlsSocket(issueTestCert(ca, { commonName: 'admin', organizations: ['system:masters'] }).certPem);
    const request = (socket: object, headers: Record<string, string>) => authnRequestOf({ req: { socket, headers, rawHeaders: [] } } as unknown as Context);
    const time = async (make: () => ReturnType<typeof request>): Promise<number> => {
      await authn.chain.authenticate(make()); // the first verification is asynchronous
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) {
        const out = authn.chain.authenticate(make());
        if (isPromise(out) || !('user' in out)) throw new Error('the authentication step did not answer a user at once');
      }
      return Number(process.hrtime.bigint() - t0) / iterations / 1000;
    };
    // A fresh header string per request, as the HTTP parser makes one.
    const tokenUs = await time(() => request(tokenSocket, { authorization: `Bearer ${token}`.slice(0) }));
    const certUs = await time(() => request(certSocket, {}));
    authn.close();
    return { token: tokenUs, certificate: certUs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const authnBench: Benchmark = {
  name: NAME,
  description: 'get RV=0 at c=64 with a service-account token vs the admin client certificate',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const admin = ctx.env.apiClient(4);
    await admin.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    for (let i = 0; i < OBJECTS; i++) {
      await admin.json('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(1024) } }, 201);
    }
    await admin.json('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } }, 201);
    const issued = await admin.json('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/reader/token`, {
      apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 },
    }, 201);
    // The account may read them (RBAC: a RoleBinding to the bootstrap `view` role, ~1 µs per request;
    // the admin is allowed as system:masters before any rule is read).
    await admin.json('POST', `/apis/rbac.authorization.orch.io/v1/namespaces/${NAMESPACE}/rolebindings`, {
      apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name: 'reader-view' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NAMESPACE }],
    }, 201);
    const paths = Array.from({ length: OBJECTS }, (_, i) => `${base}/cm-${i}?resourceVersion=0`);
    const bearerToken = issued.status.token as string;
    const asReader = new ApiClient(ctx.env.server, 1, { bearerToken });
    try {
      // The binding reaches the authorizer through its watch cache: wait until it is in effect.
      for (let tries = 0; (await asReader.request('GET', paths[0])).status !== 200; tries++) {
        if (tries === 100) throw new Error('the reader is still forbidden 10 s after its RoleBinding');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await asReader.close();
    }
    const rows: ResultRow[] = [];
    for (const name of ['HTTP/2', 'HTTP/1.1'] as const) {
      // Two generator threads per side: one event loop could not keep the server busy.
      const t: Transport = {
        name,
        certificate: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: name, paths }),
        token: new LoadWorkers(GENERATOR_THREADS, { conn: ctx.env.server, transport: name, paths, bearerToken }),
      };
      try {
        rows.push(...await measure(ctx, t));
      } finally {
        await t.certificate.close();
        await t.token.close();
      }
    }
    ctx.log(`${NAME}: the authentication step in-process`);
    const step = await authenticationStep(ctx.quick ? 50_000 : 300_000);
    rows.push({
      benchmark: NAME, metric: 'authentication step in-process, cached service-account token vs connection certificate', unit: 'µs',
      value: step.token, baseline: step.certificate, ratio: step.certificate / step.token,
      note: 'the production chain (buildAuthentication) over requests of one connection: token digest remembered per connection, '
        + 'verified claims cached, account looked up in memory; the certificate verified once per connection',
    });
    return rows;
  },
};
