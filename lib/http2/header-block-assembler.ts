/**
 * A request's header block as it arrives: a HEADERS frame's fragment (its padding and priority
 * fields checked and taken off, RFC 9113 6.2) and the CONTINUATION frames after it (6.10), joined
 * once END_HEADERS comes. Bounded: at most MAX_CONTINUATIONS frames and 4 times the header-list
 * limit in bytes, or the session ends (a CONTINUATION flood costs the client its connection,
 * not the server its memory).
 */
import * as F from './frames';
import { ConnectionError } from './connection-error';

const MAX_CONTINUATIONS = 64;

export interface HeaderBlock {
  streamId: number;
  /** The HEADERS frame's flags (END_STREAM). */
  flags: number;
  /** The HEADERS frame's priority names its own stream (RFC 9113 5.3.1: a stream error). */
  selfDependent: boolean;
  block: Buffer;
}

export class HeaderBlockAssembler {
  private pending?: { streamId: number; flags: number; selfDependent: boolean; parts: Buffer[]; bytes: number; frames: number };

  constructor(private readonly maxHeaderListSize: number) {}

  /** A block was begun and not ended: only CONTINUATION may come next. */
  get inProgress(): boolean {
    return this.pending !== undefined;
  }

  /** A HEADERS frame (stream id already checked); the whole block when it carries END_HEADERS. */
  headers(flags: number, id: number, payload: Buffer): HeaderBlock | undefined {
    let start = 0;
    let pad = 0;
    if (flags & F.FLAG_PADDED) {
      if (payload.length < 1) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'PADDED HEADERS without a pad length');
      pad = payload[0];
      start = 1;
    }
    let selfDependent = false;
    if (flags & F.FLAG_PRIORITY) {
      if (payload.length < start + 5) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'HEADERS too short for its priority');
      selfDependent = (payload.readUInt32BE(start) & 0x7fffffff) === id;
      start += 5;
    }
    if (pad > payload.length - start) throw new ConnectionError(F.PROTOCOL_ERROR, 'padding longer than the frame');
    const fragment = payload.subarray(start, payload.length - pad);
    if (flags & F.FLAG_END_HEADERS) return { streamId: id, flags, selfDependent, block: fragment };
    // Copied: the payload is a view of the socket's chunk.
    this.pending = { streamId: id, flags, selfDependent, parts: [Buffer.from(fragment)], bytes: fragment.length, frames: 0 };
    return undefined;
  }

  /** A CONTINUATION frame; the whole block when it carries END_HEADERS. */
  continuation(flags: number, id: number, payload: Buffer): HeaderBlock | undefined {
    const p = this.pending;
    if (!p || p.streamId !== id) throw new ConnectionError(F.PROTOCOL_ERROR, 'CONTINUATION without its HEADERS');
    p.parts.push(Buffer.from(payload));
    p.bytes += payload.length;
    if (++p.frames > MAX_CONTINUATIONS || p.bytes > 4 * this.maxHeaderListSize) {
      throw new ConnectionError(F.ENHANCE_YOUR_CALM, 'a header block too large');
    }
    if (!(flags & F.FLAG_END_HEADERS)) return undefined;
    this.pending = undefined;
    return { streamId: id, flags: p.flags, selfDependent: p.selfDependent, block: Buffer.concat(p.parts, p.bytes) };
  }
}
