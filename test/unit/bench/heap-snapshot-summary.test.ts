/**
 * heap-snapshot-summary.ts: a snapshot's self sizes grouped as the table prints them, on a
 * snapshot written by this very process (V8's own format, not a hand-made imitation).
 */
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { summarize } from '../../bench/heap-snapshot-summary';

class HeapSummaryMarker {
  constructor(readonly payload: string) {}
}

describe('heap-snapshot-summary', () => {
  it('counts objects by constructor and every string in one row, largest first', function () {
    this.timeout(60_000);
    const markers = Array.from({ length: 1000 }, (_, i) => new HeapSummaryMarker(`payload-${i}-${'x'.repeat(100)}`));
    const file = v8.writeHeapSnapshot(path.join(os.tmpdir(), `heap-summary-test-${process.pid}.heapsnapshot`));
    try {
      const { total, rows } = summarize(JSON.parse(readFileSync(file, 'utf8')));
      const marker = rows.find((r) => r.what === 'HeapSummaryMarker');
      expect(marker?.count).to.equal(markers.length);
      const strings = rows.filter((r) => r.what === '(strings)');
      expect(strings).to.have.length(1);
      expect(strings[0].bytes).to.be.greaterThan(markers.length * 100);
      expect(rows.map((r) => r.bytes)).to.deep.equal([...rows.map((r) => r.bytes)].sort((a, b) => b - a));
      expect(rows.reduce((s, r) => s + r.bytes, 0)).to.equal(total);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
