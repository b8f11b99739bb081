/**
 * A client's SETTINGS frame read as RFC 9113 6.5 asks: the frame's own form (on stream 0, a
 * multiple of 6 octets, an ACK empty), each value in range, and at most MAX_ENTRIES entries (a
 * longer frame is a flood, not configuration: nghttp2's max_settings). Values are taken in order
 * (6.5.3); of the initial window, the last value and the largest one (which no stream window may
 * exceed 2^31-1 by, even for a moment) are what the session needs.
 */
import * as F from './frames';
import { ConnectionError } from './connection-error';

const MAX_ENTRIES = 32;

export interface PeerSettings {
  /** SETTINGS_INITIAL_WINDOW_SIZE's last value, and its largest; -1 when not given. */
  initialWindow: number;
  largestWindow: number;
  /** SETTINGS_MAX_FRAME_SIZE, or -1. */
  maxFrameSize: number;
}

/** The settings of a SETTINGS frame that is not an acknowledgement. Throws ConnectionError. */
export function readPeerSettings(payload: Buffer): PeerSettings {
  if (payload.length % 6) throw new ConnectionError(F.FRAME_SIZE_ERROR, 'SETTINGS length');
  if (payload.length / 6 > MAX_ENTRIES) throw new ConnectionError(F.ENHANCE_YOUR_CALM, 'too many settings in one frame');
  const out: PeerSettings = { initialWindow: -1, largestWindow: -1, maxFrameSize: -1 };
  for (let pos = 0; pos < payload.length; pos += 6) {
    const key = payload.readUInt16BE(pos);
    const value = payload.readUInt32BE(pos + 2);
    if (key === F.SETTINGS_INITIAL_WINDOW_SIZE) {
      if (value > F.MAX_WINDOW) throw new ConnectionError(F.FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE too large');
      out.initialWindow = value;
      out.largestWindow = Math.max(out.largestWindow, value);
    } else if (key === F.SETTINGS_MAX_FRAME_SIZE) {
      if (value < F.DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) throw new ConnectionError(F.PROTOCOL_ERROR, 'SETTINGS_MAX_FRAME_SIZE out of range');
      out.maxFrameSize = value;
    } else if (key === F.SETTINGS_ENABLE_PUSH) {
      if (value > 1) throw new ConnectionError(F.PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH not 0 or 1');
    }
    // HEADER_TABLE_SIZE: the server's encoder never uses the peer's table. The others concern it not.
  }
  return out;
}
