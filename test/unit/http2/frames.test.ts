/**
 * The HTTP/2 frame reader: frames come out whole and in order however the byte stream is cut.
 */
import { expect } from 'chai';
import { DATA, FRAME_HEADER, FrameReader, FrameTooLarge, HEADERS, SETTINGS, frameOf, rstStreamFrame, windowUpdateFrame } from '../../../lib/http2/frames';

interface Seen { type: number; flags: number; id: number; payload: string }

function readAll(chunks: Buffer[]): Seen[] {
  const seen: Seen[] = [];
  const reader = new FrameReader((type, flags, id, payload) => seen.push({ type, flags, id, payload: payload.toString('hex') }));
  for (const c of chunks) reader.push(c);
  return seen;
}

describe('HTTP/2 FrameReader', () => {
  const frames = [
    frameOf(SETTINGS, 0, 0, Buffer.from('000400ffffff', 'hex')),
    frameOf(HEADERS, 0x4, 1, Buffer.from('8286', 'hex')),
    frameOf(DATA, 0x1, 1, Buffer.alloc(70_000, 7)),
    frameOf(DATA, 0, 3),
    rstStreamFrame(3, 8),
    windowUpdateFrame(0, 1 << 30),
  ];
  const stream = Buffer.concat(frames);
  const expected = readAll([stream]);

  it('reads frames from one chunk, with type, flags, stream id and payload', () => {
    expect(expected.map((f) => [f.type, f.flags, f.id, f.payload.length / 2])).to.deep.equal([
      [SETTINGS, 0, 0, 6], [HEADERS, 4, 1, 2], [DATA, 1, 1, 70_000], [DATA, 0, 3, 0], [3, 0, 3, 4], [8, 0, 0, 4],
    ]);
  });

  it('the same frames when the bytes come one at a time', () => {
    const bytes: Buffer[] = [];
    for (let i = 0; i < stream.length && i < 200; i++) bytes.push(stream.subarray(i, i + 1));
    bytes.push(stream.subarray(200));
    expect(readAll(bytes)).to.deep.equal(expected);
  });

  it('the same frames when cut at every point of a frame header, and at random points', () => {
    for (let cut = 1; cut < 3 * FRAME_HEADER; cut++) {
      expect(readAll([stream.subarray(0, cut), stream.subarray(cut)]), `cut at ${cut}`).to.deep.equal(expected);
    }
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const chunks: Buffer[] = [];
      for (let pos = 0; pos < stream.length;) {
        const size = 1 + Math.floor(random() * 20_000);
        chunks.push(stream.subarray(pos, pos + size));
        pos += size;
      }
      expect(readAll(chunks), `round ${round}`).to.deep.equal(expected);
    }
  });

  it('holds an incomplete frame until the rest arrives', () => {
    const seen = readAll([stream.subarray(0, FRAME_HEADER + 6 + FRAME_HEADER + 1)]);
    expect(seen).to.have.length(1);
  });

  it('refuses a frame over its limit at the header, before holding the payload, however the header is cut', () => {
    const big = frameOf(DATA, 0, 1, Buffer.alloc(20_000));
    for (const cut of [0, 2, 5, 9]) {
      const seen: number[] = [];
      const reader = new FrameReader((_t, _f, _id, payload) => seen.push(payload.length), 16_384);
      reader.push(frameOf(DATA, 0, 1, Buffer.alloc(16_384))); // at the limit: taken
      const header = big.subarray(0, FRAME_HEADER);
      const push = () => {
        if (cut > 0) reader.push(header.subarray(0, cut));
        reader.push(header.subarray(cut)); // only the header: no payload byte has been sent yet
      };
      expect(push).to.throw(FrameTooLarge, 'a frame of 20000 bytes, over the 16384 allowed');
      expect(seen).to.deep.equal([16_384]);
    }
  });
});
