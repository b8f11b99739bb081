/**
 * The KV messages (../etcd3/kv-types.ts) to and from the etcd3 package's: requests built for it
 * (Range, a Txn's compares and operations), its answers read back (Range, Txn, a watch's).
 * The package speaks snake_case with 64-bit integers as decimal strings.
 */
import type {
  ICompare, IKeyValue, IRangeRequest, IRangeResponse, IRequestOp, IResponseOp, ITxnResponse, IWatchResponse,
} from 'etcd3';
import type {
  EtcdKeyValue, RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse,
} from '../etcd3/kv-types';
import { EVENT_DELETE, EVENT_PUT, WatchEvent, WatchResponse } from '../etcd3/watch-stream';

const EMPTY = Buffer.alloc(0);

export const num = (v: string | number | null | undefined): number => (v === undefined || v === null ? 0 : Number(v));

function toKv(kv: IKeyValue): EtcdKeyValue {
  return {
    key: kv.key ?? EMPTY,
    value: kv.value ?? EMPTY,
    createRevision: num(kv.create_revision),
    modRevision: num(kv.mod_revision),
    version: num(kv.version),
  };
}

export function rangeRequest(r: RangeRequest): IRangeRequest {
  const out: IRangeRequest = { key: r.key };
  if (r.rangeEnd?.length) out.range_end = r.rangeEnd;
  if (r.limit) out.limit = r.limit;
  if (r.revision) out.revision = r.revision;
  if (r.serializable) out.serializable = true;
  if (r.keysOnly) out.keys_only = true;
  if (r.countOnly) out.count_only = true;
  if (r.minModRevision) out.min_mod_revision = r.minModRevision;
  return out;
}

export function rangeResponse(res: IRangeResponse): RangeResponse {
  return {
    header: { revision: num(res.header?.revision) },
    kvs: (res.kvs ?? []).map(toKv),
    more: !!res.more,
    count: num(res.count),
  };
}

export function requestOp(op: RequestOp): IRequestOp {
  if (op.put) return { request_put: op.put.lease ? { key: op.put.key, value: op.put.value, lease: op.put.lease.toString() } : { key: op.put.key, value: op.put.value } };
  if (op.range) return { request_range: rangeRequest(op.range) };
  if (op.deleteRange) {
    const d = op.deleteRange;
    return { request_delete_range: d.rangeEnd?.length ? { key: d.key, range_end: d.rangeEnd } : { key: d.key } };
  }
  throw new TypeError('RequestOp needs one of range, put or deleteRange');
}

export function compare(c: TxnRequest['compare'] extends (infer C)[] | undefined ? C : never): ICompare {
  const out: ICompare = { key: c.key, target: c.target, result: c.result };
  switch (c.target) {
    case 'Version': out.version = c.version ?? 0; break;
    case 'Create': out.create_revision = c.createRevision ?? 0; break;
    case 'Mod': out.mod_revision = c.modRevision ?? 0; break;
    case 'Value': out.value = c.value ?? EMPTY; break;
    default: throw new TypeError(`bad Compare target: ${String(c.target)}`);
  }
  return out;
}

function responseOp(r: IResponseOp): ResponseOp {
  if (r.response_range) return { responseRange: rangeResponse(r.response_range) };
  if (r.response_put) return { responsePut: { header: { revision: num(r.response_put.header?.revision) } } };
  if (r.response_delete_range) {
    return { responseDeleteRange: { header: { revision: num(r.response_delete_range.header?.revision) }, deleted: num(r.response_delete_range.deleted) } };
  }
  return {};
}

export function txnResponse(res: ITxnResponse): TxnResponse {
  return {
    header: { revision: num(res.header?.revision) },
    succeeded: !!res.succeeded,
    responses: (res.responses ?? []).map(responseOp),
  };
}

export function watchResponse(res: IWatchResponse): WatchResponse {
  const events: WatchEvent[] = (res.events ?? []).map((ev) => ({
    // The package's kv.proto names the values Put and Delete (etcd's: PUT, DELETE).
    type: String(ev.type).toUpperCase() === 'DELETE' || (ev.type as unknown) === EVENT_DELETE ? EVENT_DELETE : EVENT_PUT,
    kv: toKv(ev.kv),
    prevKv: ev.prev_kv ? toKv(ev.prev_kv) : undefined,
  }));
  return {
    header: { revision: num(res.header?.revision) },
    watchId: num(res.watch_id),
    created: !!res.created,
    canceled: !!res.canceled,
    compactRevision: num(res.compact_revision),
    cancelReason: res.cancel_reason ?? '',
    fragment: !!res.fragment,
    events,
  };
}
