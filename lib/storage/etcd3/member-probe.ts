/**
 * The liveness probe of a member (EtcdKvClient.checkAlive): a serializable count of one key, with
 * hasleader, so that it also finds a member that lost its leader; its answer's raft term is noted.
 */
import { GrpcStatus } from '../errors';
import type { H2Headers } from '../../http2/hpack';
import type { H2Session, H2Stream, H2StreamHandler } from '../../http2/client-session';
import { decodeRangeResponse, encodeRangeRequest } from './kv-codec';
import { isNoLeader, percentDecode } from './grpc-failure';
import type { CallHost } from './unary-call';

/** The liveness probe (checkAlive); with hasleader, so that it also finds a member that lost its leader. */
export const PROBE_BODY = encodeRangeRequest({ key: Buffer.from([0]), limit: 1, serializable: true, countOnly: true });
export const PROBE_TIMEOUT_MS = 1_000;

/** A probe's stream handler: any answer counts; "no leader" leaves the member; the raft term is noted. */
export class Probe implements H2StreamHandler {
  body: Buffer | undefined = undefined;
  ok = false;
  answered = false;

  constructor(readonly client: CallHost, readonly session: H2Session, readonly timer: NodeJS.Timeout) {}

  onHeaders(_stream: H2Stream, headers: H2Headers): void {
    this.answered = true;
    clearTimeout(this.timer);
    const status = headers['grpc-status'];
    if (status === undefined) return;
    this.ok = Number(status) === GrpcStatus.OK;
    if (isNoLeader(Number(status), percentDecode(headers['grpc-message'] ?? ''))) this.client.leaveMember(this.session);
  }

  onData(_stream: H2Stream, chunk: Buffer): void {
    // One small message (a count): one chunk, or a few. Its header carries the member's raft term.
    this.body = this.body === undefined ? Buffer.from(chunk) : Buffer.concat([this.body, chunk]);
  }

  onClose(stream: H2Stream): void {
    clearTimeout(this.timer);
    this.client.probeSettled(this.session);
    if (!stream.ended || !this.ok || this.body === undefined || this.body.length <= 5) return;
    let term: number | undefined;
    try {
      term = decodeRangeResponse(this.body.subarray(5)).header.raftTerm;
    } catch {
      return;
    }
    if (term !== undefined) this.client.observeTerm(this.session, term);
  }
}
