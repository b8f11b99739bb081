/**
 * The two sides the crud benchmark compares, behind one interface: the server over HTTPS, and
 * the same operation done directly with etcd3 the way the server's storage does it
 * (lib/storage/etcd3/store.ts): a transaction with the same compare for writes, a range for reads.
 */
import { Etcd3 } from 'etcd3';
import type { ApiResponse } from './api-client';

/** Either HTTP client of the load generator: HTTP/2 (Http2ApiClient) or HTTP/1.1 keep-alive (ApiClient). */
export interface RequestClient {
  request(method: string, path: string, body?: unknown): Promise<ApiResponse>;
}

/** Where an object's version lives: resourceVersion on the server, mod_revision in etcd (the same number). */
export type Version = string;

export interface CrudSide {
  /** Creates `name` (fails if it exists); returns its version. */
  create(name: string, seq: number): Promise<Version>;
  /** Reads `name`; `cached` asks the server for resourceVersion=0 (the raw side has one kind of read). */
  get(name: string, cached: boolean): Promise<void>;
  /** Replaces `name` if it is still at `version`, with data new to `seq`; returns the new version. */
  update(name: string, version: Version, seq: number): Promise<Version>;
  /** Deletes `name` if it is still at `version`. */
  delete(name: string, version: Version): Promise<void>;
}

/** 1 KiB of data, as the list and memory benchmarks use. */
export const PAYLOAD = '0123456789abcdef'.repeat(64);

const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/;

/** The server (over whichever client it is given): POST, GET (consistent or resourceVersion=0), PUT with resourceVersion, DELETE with a resourceVersion precondition. */
export class ServerCrud implements CrudSide {
  private readonly base: string;

  constructor(private readonly api: RequestClient, private readonly namespace: string) {
    this.base = `/api/v1/namespaces/${namespace}/configmaps`;
  }

  async create(name: string, seq: number): Promise<Version> {
    return versionOf(await this.expect('POST', this.base, this.configMap(name, seq), 201));
  }

  async get(name: string, cached: boolean): Promise<void> {
    await this.expect('GET', `${this.base}/${name}${cached ? '?resourceVersion=0' : ''}`, undefined, 200);
  }

  async update(name: string, version: Version, seq: number): Promise<Version> {
    const body = this.configMap(name, seq, version);
    return versionOf(await this.expect('PUT', `${this.base}/${name}`, body, 200));
  }

  async delete(name: string, version: Version): Promise<void> {
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: version } };
    await this.expect('DELETE', `${this.base}/${name}`, options, 200);
  }

  private configMap(name: string, seq: number, resourceVersion?: Version) {
    return {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name, namespace: this.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
      data: { payload: PAYLOAD, seq: String(seq) },
    };
  }

  private async expect(method: string, path: string, body: unknown, status: number): Promise<string> {
    const res = await this.api.request(method, path, body);
    const text = res.body.toString('utf8');
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status}, want ${status}: ${text.slice(0, 300)}`);
    return text;
  }
}

/** The first resourceVersion in a response: the object's, since metadata precedes everything that could hold one. */
function versionOf(body: string): Version {
  const m = RESOURCE_VERSION.exec(body);
  if (!m) throw new Error(`no resourceVersion in ${body.slice(0, 300)}`);
  return m[1];
}

/**
 * Raw etcd3 under `prefix` (outside the server's key space, so no watch cache sees these keys),
 * with values shaped and sized as the server stores a ConfigMap: `stored` is one such value.
 */
export class RawEtcdCrud implements CrudSide {
  private readonly stored: { metadata: Record<string, unknown>; data?: Record<string, string> };

  constructor(private readonly etcd: Etcd3, private readonly prefix: string, storedValue: Buffer) {
    this.stored = JSON.parse(storedValue.toString('utf8'));
  }

  async create(name: string, seq: number): Promise<Version> {
    const key = this.key(name);
    const res = await this.etcd.kv.txn({
      compare: [{ key, result: 'Equal', target: 'Create', create_revision: 0 }],
      success: [{ request_put: { key, value: this.value(name, seq) } }],
      failure: [{ request_range: { key } }],
    });
    if (!res.succeeded) throw new Error(`etcd create ${name}: compare failed`);
    return res.header.revision;
  }

  async get(name: string): Promise<void> {
    const res = await this.etcd.kv.range({ key: this.key(name) });
    if (res.kvs.length !== 1) throw new Error(`etcd range ${name}: ${res.kvs.length} keys`);
  }

  async update(name: string, version: Version, seq: number): Promise<Version> {
    const key = this.key(name);
    const res = await this.etcd.kv.txn({
      compare: [{ key, result: 'Equal', target: 'Mod', mod_revision: version }],
      success: [{ request_put: { key, value: this.value(name, seq) } }],
      failure: [{ request_range: { key } }],
    });
    if (!res.succeeded) throw new Error(`etcd update ${name}: compare failed`);
    return res.header.revision;
  }

  async delete(name: string, version: Version): Promise<void> {
    const key = this.key(name);
    const res = await this.etcd.kv.txn({
      compare: [{ key, result: 'Equal', target: 'Mod', mod_revision: version }],
      success: [{ request_delete_range: { key } }],
      failure: [{ request_range: { key } }],
    });
    if (!res.succeeded) throw new Error(`etcd delete ${name}: compare failed`);
  }

  private key(name: string): Buffer {
    return Buffer.from(`${this.prefix}${name}`);
  }

  /** The stored value with this object's name and sequence number: the same shape and size. */
  private value(name: string, seq: number): Buffer {
    const s = this.stored;
    return Buffer.from(JSON.stringify({ ...s, metadata: { ...s.metadata, name }, data: { ...s.data, seq: String(seq) } }));
  }
}
