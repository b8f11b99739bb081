import { expect } from 'chai';
import { humanDuration, translateTimestampSince } from '../../../lib/meta/human-duration';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('human-duration', () => {
  describe('humanDuration (apimachinery duration.HumanDuration)', () => {
    const rows: Array<[number, string]> = [
      [-3 * S, '<invalid>'], [-1500, '0s'], [0, '0s'], [999, '0s'], [59 * S, '59s'], [119 * S, '119s'],
      [2 * M, '2m'], [3 * M + 12 * S, '3m12s'], [9 * M + 59 * S, '9m59s'], [10 * M + 30 * S, '10m'], [179 * M, '179m'],
      [3 * H, '3h'], [5 * H + 7 * M, '5h7m'], [8 * H + 30 * M, '8h'], [47 * H, '47h'],
      [2 * D, '2d'], [3 * D + 4 * H, '3d4h'], [8 * D + 5 * H, '8d'], [729 * D, '729d'],
      [2 * 365 * D, '2y'], [2 * 365 * D + 30 * D, '2y30d'], [9 * 365 * D + 100 * D, '9y'],
    ];
    for (const [ms, want] of rows) {
      it(`${ms} ms -> ${want}`, () => expect(humanDuration(ms)).to.equal(want));
    }
  });

  describe('translateTimestampSince', () => {
    it('is the age of an RFC 3339 timestamp, <unknown> without one', () => {
      const now = new Date('2024-05-01T12:00:00Z');
      expect(translateTimestampSince('2024-05-01T11:55:00Z', now)).to.equal('5m');
      expect(translateTimestampSince(undefined, now)).to.equal('<unknown>');
      expect(translateTimestampSince('not a time', now)).to.equal('<unknown>');
    });
  });
});
