/**
 * HTTP/2 frames (RFC 9113 section 4, 6): the constants this transport uses, frame writing, and a
 * reader that cuts the frames out of a socket's chunks.
 */

export const FRAME_HEADER = 9;
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export const DATA = 0x0;
export const HEADERS = 0x1;
export const PRIORITY = 0x2;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PUSH_PROMISE = 0x5;
export const PING = 0x6;
export const GOAWAY = 0x7;
export const WINDOW_UPDATE = 0x8;
export const CONTINUATION = 0x9;

export const FLAG_END_STREAM = 0x1;
export const FLAG_ACK = 0x1;
export const FLAG_END_HEADERS = 0x4;
export const FLAG_PADDED = 0x8;
export const FLAG_PRIORITY = 0x20;

export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
export const SETTINGS_ENABLE_PUSH = 0x2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
export const SETTINGS_MAX_FRAME_SIZE = 0x5;
export const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

/** Error codes (RFC 9113 section 7), the same numbers as node:http2's NGHTTP2_* constants. */
export const NO_ERROR = 0x0;
export const PROTOCOL_ERROR = 0x1;
export const INTERNAL_ERROR = 0x2;
export const FLOW_CONTROL_ERROR = 0x3;
export const FRAME_SIZE_ERROR = 0x6;
export const REFUSED_STREAM = 0x7;
export const CANCEL = 0x8;
export const COMPRESSION_ERROR = 0x9;
export const ENHANCE_YOUR_CALM = 0xb;

/** The largest flow-control window (2^31 - 1). */
export const MAX_WINDOW = 0x7fffffff;
/** Every window starts here until SETTINGS (streams) or WINDOW_UPDATE (the connection) say otherwise. */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME_SIZE = 16_384;

/** Writes a frame header at `buf[pos]`. */
export function writeFrameHeader(buf: Buffer, pos: number, length: number, type: number, flags: number, streamId: number): void {
  buf[pos] = length >>> 16;
  buf[pos + 1] = (length >>> 8) & 0xff;
  buf[pos + 2] = length & 0xff;
  buf[pos + 3] = type;
  buf[pos + 4] = flags;
  buf.writeUInt32BE(streamId, pos + 5);
}

/** A whole frame with `payload` (or an empty one). */
export function frameOf(type: number, flags: number, streamId: number, payload?: Buffer): Buffer {
  const length = payload?.length ?? 0;
  const buf = Buffer.allocUnsafe(FRAME_HEADER + length);
  writeFrameHeader(buf, 0, length, type, flags, streamId);
  if (payload) payload.copy(buf, FRAME_HEADER);
  return buf;
}

export function settingsFrame(settings: ReadonlyArray<readonly [number, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frameOf(SETTINGS, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(buf, 0, 4, WINDOW_UPDATE, 0, streamId);
  buf.writeUInt32BE(increment, FRAME_HEADER);
  return buf;
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(buf, 0, 4, RST_STREAM, 0, streamId);
  buf.writeUInt32BE(code, FRAME_HEADER);
  return buf;
}

export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 8);
  writeFrameHeader(buf, 0, 8, GOAWAY, 0, 0);
  buf.writeUInt32BE(lastStreamId, FRAME_HEADER);
  buf.writeUInt32BE(code, FRAME_HEADER + 4);
  return buf;
}

/** Receives each frame; `payload` is a view, valid until the call returns unless copied. */
export type FrameSink = (type: number, flags: number, streamId: number, payload: Buffer) => void;

/**
 * Cuts frames out of a byte stream. A frame split across chunks is joined once it is complete;
 * a frame within one chunk is handed out as a view of it.
 */
export class FrameReader {
  /** Bytes of an incomplete frame, and how many of them are held. */
  private parts: Buffer[] = [];
  private held = 0;

  /**
   * @param maxLength the largest payload taken: a frame header announcing more throws
   *   FrameTooLarge before any of its payload is held (a server's SETTINGS_MAX_FRAME_SIZE)
   */
  constructor(private readonly sink: FrameSink, private readonly maxLength = 0xffffff) {}

  /**
   * Takes the next chunk; hands every frame it completes to the sink. Frames larger than the
   * SETTINGS_MAX_FRAME_SIZE this client announced are taken too (up to the protocol's 16 MiB).
   */
  push(chunk: Buffer): void {
    let data = chunk;
    if (this.held > 0) {
      this.parts.push(chunk);
      this.held += chunk.length;
      const need = this.held >= FRAME_HEADER ? FRAME_HEADER + this.checked(lengthAt(this.parts)) : Infinity;
      if (this.held < need) return;
      data = Buffer.concat(this.parts, this.held);
      this.parts = [];
      this.held = 0;
    }
    const n = data.length;
    let pos = 0;
    while (n - pos >= FRAME_HEADER) {
      const length = this.checked((data[pos] << 16) | (data[pos + 1] << 8) | data[pos + 2]);
      const end = pos + FRAME_HEADER + length;
      if (end > n) break;
      const streamId = data.readUInt32BE(pos + 5) & 0x7fffffff;
      this.sink(data[pos + 3], data[pos + 4], streamId, data.subarray(pos + FRAME_HEADER, end));
      pos = end;
    }
    if (pos < n) {
      this.parts.push(pos === 0 ? data : data.subarray(pos));
      this.held = n - pos;
    }
  }

  private checked(length: number): number {
    if (length > this.maxLength) throw new FrameTooLarge(length, this.maxLength);
    return length;
  }
}

/** A frame header announced a payload over the reader's limit. */
export class FrameTooLarge extends Error {
  constructor(readonly length: number, readonly limit: number) {
    super(`a frame of ${length} bytes, over the ${limit} allowed`);
  }
}

/** The payload length in a frame header that may be spread over several parts. */
function lengthAt(parts: Buffer[]): number {
  let length = 0;
  let i = 0;
  for (const p of parts) {
    for (let j = 0; j < p.length && i < 3; j++, i++) length = length * 256 + p[j];
    if (i === 3) break;
  }
  return length;
}
