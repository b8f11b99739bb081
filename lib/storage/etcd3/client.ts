/**
 * Builds the etcd3 client for the store: several endpoints, optional TLS, and a deadline on
 * every unary call so that an unreachable etcd fails requests quickly instead of hanging.
 */
import { readFileSync } from 'node:fs';
import { Etcd3, IOptions } from 'etcd3';

export interface EtcdClientOptions {
  endpoints: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Deadline of a unary call in milliseconds. */
  callTimeoutMs?: number;
}

export function createEtcdClient(opts: EtcdClientOptions): Etcd3 {
  const timeout = opts.callTimeoutMs ?? 10_000;
  const options: IOptions = {
    hosts: opts.endpoints,
    dialTimeout: 3_000,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
    grpcOptions: {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
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
