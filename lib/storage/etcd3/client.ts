/**
 * Builds a client of the etcd3 package (grpc-js) with the store's options: several endpoints,
 * optional TLS, and a deadline on every unary call. The server itself no longer uses it (all of
 * its etcd traffic goes through the lean client, kv-client.ts, so that it loads no grpc-js); the
 * tests and benchmarks do, as an independent client to write and cross-check with.
 */
import { readFileSync } from 'node:fs';
import { Etcd3, IOptions } from 'etcd3';
import { EtcdClientOptions } from './kv-client';

export type { EtcdClientOptions };

export function createEtcdClient(opts: EtcdClientOptions): Etcd3 {
  const timeout = opts.callTimeoutMs ?? 10_000;
  const options: IOptions = {
    hosts: opts.endpoints,
    dialTimeout: 3_000,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
    grpcOptions: {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // Flow-control windows as large as the lean client's: with Node's 64 KiB default, 64
      // concurrent answers stall on window updates (benchmarks compare the two clients).
      'grpc-node.flow_control_window': 1 << 30,
    },
  };
  if (opts.caFile) {
    options.credentials = {
      rootCertificate: readFileSync(opts.caFile),
      certChain: opts.certFile ? readFileSync(opts.certFile) : undefined,
      privateKey: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
    };
  }
  return new Etcd3(options);
}
