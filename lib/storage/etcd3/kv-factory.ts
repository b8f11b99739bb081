/**
 * The one place that picks the etcd client (`--etcd-client`): the lean client written here
 * (kv-client.ts, the default: it costs the server less CPU per request, see
 * test/bench/etcd-client.bench.ts) or the etcd3 npm package (../etcd3pkg/etcd3-kv.ts, loaded
 * only when asked for, so that the default loads no grpc-js).
 */
import { EtcdClientOptions, EtcdKvClient } from './kv-client';
import { ETCD_CLIENTS, type EtcdClientKind } from '../../config';
import type { EtcdKv } from './kv';

export function createEtcdKv(kind: EtcdClientKind, opts: EtcdClientOptions): EtcdKv {
  switch (kind) {
    case 'lean':
      return new EtcdKvClient(opts);
    case 'etcd3': {
      const { createEtcd3PackageKv } = require('../etcd3pkg/etcd3-kv') as typeof import('../etcd3pkg/etcd3-kv');
      return createEtcd3PackageKv(opts);
    }
    default:
      throw new Error(`unknown etcd client ${JSON.stringify(kind)}: one of ${ETCD_CLIENTS.join(', ')}`);
  }
}
