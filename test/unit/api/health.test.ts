import Router from '@koa/router';
import { expect } from 'chai';
import { createServer, Server } from 'http';
import { AddressInfo } from 'net';
import Koa from 'koa';
import { HealthChecks, installHealth } from '../../../lib/api/health';
import { isApiError } from '../../../lib/meta/api-errors';

interface Served { base: string; server: Server; logged: string[] }

/** A Koa app with only the health routes and a tiny error middleware (ApiError -> its code). */
async function serve(checks: HealthChecks, logged: string[] = []): Promise<Served> {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      if (!isApiError(e)) throw e;
      ctx.status = e.code;
      ctx.body = e.toStatus();
    }
  });
  const router = new Router();
  installHealth(router, checks);
  app.use(router.routes());
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, server, logged };
}

async function get(s: Served, path: string): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(`${s.base}${path}`);
  return { status: res.status, body: await res.text(), headers: res.headers };
}

const failing = async (): Promise<void> => { throw new Error('etcd: connection refused'); };

describe('health', () => {
  let s: Served | undefined;
  afterEach(async () => {
    if (s) await new Promise((resolve) => s!.server.close(resolve));
    s = undefined;
  });

  function checksWithLog(opts: ConstructorParameters<typeof HealthChecks>[0] = {}): { checks: HealthChecks; logged: string[] } {
    const logged: string[] = [];
    return { checks: new HealthChecks({ ...opts, log: (m) => logged.push(m) }), logged };
  }

  it('answers ok with text/plain and nosniff when every check passes', async () => {
    const { checks, logged } = checksWithLog();
    checks.add('etcd', async () => undefined);
    s = await serve(checks, logged);
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const r = await get(s, path);
      expect(r.status, path).to.equal(200);
      expect(r.body, path).to.equal('ok');
      expect(r.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
    }
  });

  it('prints one line per check and a summary with ?verbose', async () => {
    const { checks, logged } = checksWithLog();
    checks.add('etcd', async () => undefined);
    checks.add('informer-sync', async () => undefined, { readyz: true });
    s = await serve(checks, logged);
    expect((await get(s, '/livez?verbose')).body).to.equal('[+]ping ok\n[+]etcd ok\nlivez check passed\n');
    expect((await get(s, '/readyz?verbose=1')).body)
      .to.equal('[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  it('answers 500 with per-check lines, withholds the reason and logs it', async () => {
    const { checks, logged } = checksWithLog();
    checks.add('etcd', failing);
    s = await serve(checks, logged);
    const r = await get(s, '/readyz');
    expect(r.status).to.equal(500);
    expect(r.body).to.equal('[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
    expect(r.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(logged.join('\n')).to.include('etcd: connection refused');
  });

  it('fails a hung check after the per-check timeout', async () => {
    const { checks, logged } = checksWithLog({ checkTimeoutMs: 100 });
    checks.add('etcd', () => new Promise<void>(() => undefined));
    s = await serve(checks, logged);
    const started = Date.now();
    const r = await get(s, '/livez');
    expect(r.status).to.equal(500);
    expect(Date.now() - started).to.be.lessThan(2000);
    expect(logged.join('\n')).to.include('timed out');
  });

  it('excludes checks with ?exclude (repeatable) and warns about names that match nothing', async () => {
    const { checks, logged } = checksWithLog();
    checks.add('etcd', failing);
    checks.add('log', failing);
    s = await serve(checks, logged);
    expect(await get(s, '/livez?exclude=etcd&exclude=log')).to.include({ status: 200, body: 'ok' });
    expect((await get(s, '/livez?verbose&exclude=etcd&exclude=log')).body)
      .to.equal('[+]ping ok\n[+]etcd excluded: ok\n[+]log excluded: ok\nlivez check passed\n');
    const warned = await get(s, '/livez?verbose&exclude=etcd&exclude=log&exclude=nope&exclude=gone');
    expect(warned.status).to.equal(200);
    expect(warned.body).to.equal('[+]ping ok\n[+]etcd excluded: ok\n[+]log excluded: ok\n'
      + 'warn: some health checks cannot be excluded: no matches for "gone","nope"\nlivez check passed\n');
  });

  it('serves one check at /<endpoint>/<name> and 404 for an unknown one', async () => {
    const { checks, logged } = checksWithLog();
    checks.add('etcd', failing);
    checks.add('poststarthook/start-informers', async () => undefined, { readyz: true });
    s = await serve(checks, logged);
    expect(await get(s, '/livez/ping')).to.include({ status: 200, body: 'ok' });
    expect(await get(s, '/readyz/poststarthook/start-informers')).to.include({ status: 200, body: 'ok' });
    expect(await get(s, '/readyz/etcd')).to.include({ status: 500, body: 'internal server error: etcd: connection refused\n' });
    expect((await get(s, '/livez/nope')).status).to.equal(404);
    expect((await get(s, '/livez/poststarthook/start-informers')).status).to.equal(404);
  });

  it('fails readyz (not livez) after startShutdown', async () => {
    const { checks, logged } = checksWithLog();
    s = await serve(checks, logged);
    expect((await get(s, '/readyz')).status).to.equal(200);
    checks.startShutdown();
    const ready = await get(s, '/readyz');
    expect(ready.status).to.equal(500);
    expect(ready.body).to.equal('[+]ping ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    expect((await get(s, '/readyz/shutdown')).status).to.equal(500);
    expect(await get(s, '/livez')).to.include({ status: 200, body: 'ok' });
    expect(await get(s, '/healthz')).to.include({ status: 200, body: 'ok' });
  });

  it('reports failing livez checks as passing during the grace period after markStarted', async () => {
    const { checks, logged } = checksWithLog({ livezGracePeriodMs: 300 });
    checks.add('etcd', failing);
    checks.markStarted();
    s = await serve(checks, logged);
    expect(await get(s, '/livez')).to.include({ status: 200, body: 'ok' });
    expect(await get(s, '/livez/etcd')).to.include({ status: 200, body: 'ok' });
    expect((await get(s, '/readyz')).status).to.equal(500);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await get(s, '/livez')).status).to.equal(500);
  });

  it('refuses duplicate and reserved check names', () => {
    const checks = new HealthChecks();
    checks.add('etcd', async () => undefined);
    expect(() => checks.add('etcd', async () => undefined)).to.throw();
    expect(() => checks.add('ping', async () => undefined)).to.throw();
    expect(() => checks.add('shutdown', async () => undefined)).to.throw();
  });

  it('tells the observer each check run by a whole endpoint, not excluded checks nor single-check paths', async () => {
    const seen: string[] = [];
    const checks = new HealthChecks({ log: () => undefined, observe: (name, endpoint, ok) => seen.push(`${endpoint}/${name}=${ok}`) });
    checks.add('etcd', failing);
    checks.add('informer-sync', async () => undefined, { readyz: true });
    s = await serve(checks);
    expect((await get(s, '/readyz')).status).to.equal(500);
    expect((await get(s, '/livez?exclude=etcd')).status).to.equal(200);
    expect((await get(s, '/readyz/informer-sync')).status).to.equal(200);
    expect(seen).to.deep.equal([
      'readyz/ping=true', 'readyz/etcd=false', 'readyz/informer-sync=true', 'readyz/shutdown=true',
      'livez/ping=true',
    ]);
  });
});
