/**
 * --etcd-client picks the etcd client (lib/storage/etcd3/kv-factory.ts). The default (lean) must
 * not load the etcd3 package or grpc-js: that is half of why the lean client exists. Checked in
 * a fresh Node process, since this one has loaded everything the other tests use.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseFlags, FlagError } from '../../../lib/server/flags';

const DIST = path.resolve(__dirname, '../../../lib');

/** The module paths (under node_modules) a fresh process has loaded after `script`. */
function modulesLoadedBy(script: string): string[] {
  const out = execFileSync(process.execPath, ['-e', `
    ${script}
    const loaded = Object.keys(require.cache).filter((p) => p.includes('node_modules'));
    process.stdout.write(JSON.stringify(loaded));
  `], { encoding: 'utf8', env: { ...process.env, DIST } });
  return JSON.parse(out) as string[];
}

describe('--etcd-client', () => {
  it('defaults to lean and accepts etcd3; anything else is refused with the choices', () => {
    expect(parseFlags([]).etcdClient).to.equal('lean');
    expect(parseFlags(['--etcd-client=etcd3']).etcdClient).to.equal('etcd3');
    expect(() => parseFlags(['--etcd-client=grpc'])).to.throw(FlagError, /--etcd-client.*lean.*etcd3/);
  });

  it('the server module and a lean client load neither the etcd3 package nor grpc-js', function () {
    this.timeout(30_000);
    const loaded = modulesLoadedBy(`
      require(process.env.DIST + '/server/server');
      const { createEtcdKv } = require(process.env.DIST + '/storage/etcd3/kv-factory');
      createEtcdKv('lean', { endpoints: ['http://127.0.0.1:1'] }).close();
    `);
    expect(loaded.length).to.be.above(0);
    expect(loaded.filter((p) => /node_modules\/(etcd3|@grpc|cockatiel)\//.test(p))).to.deep.equal([]);
  });

  it('an etcd3 client loads the package', function () {
    this.timeout(30_000);
    const loaded = modulesLoadedBy(`
      const { createEtcdKv } = require(process.env.DIST + '/storage/etcd3/kv-factory');
      createEtcdKv('etcd3', { endpoints: ['http://127.0.0.1:1'] }).close();
    `);
    expect(loaded.some((p) => /node_modules\/etcd3\//.test(p))).to.equal(true);
    expect(loaded.some((p) => /node_modules\/@grpc\/grpc-js\//.test(p))).to.equal(true);
  });
});
