/**
 * The split of `make test` into a parallel and a serial group (test/run/suite-groups.ts), on
 * made-up names and on the compiled suites of .mocharc.js themselves.
 */
import { expect } from 'chai';
import path from 'node:path';
import { specFiles } from '../../run/spec-files';
import { SERIAL_SUITES, splitSuites, unmatchedSerialSuites } from '../../run/suite-groups';

const ROOT = path.resolve(__dirname, '../../../..');

describe('suite groups', () => {
  const serial = [{ files: 'dist/test/integration/*-faults.test.js', why: 'x' }, { files: 'dist/test/e2e/gone.test.js', why: 'y' }];

  it('every file lands in exactly one group, in the order given', () => {
    const files = ['dist/test/unit/a.test.js', 'dist/test/integration/etcd-faults.test.js', 'dist/test/integration/b.test.js', 'dist/test/integration/server-faults.test.js'];
    expect(splitSuites(files, serial)).to.deep.equal({
      parallel: ['dist/test/unit/a.test.js', 'dist/test/integration/b.test.js'],
      serial: ['dist/test/integration/etcd-faults.test.js', 'dist/test/integration/server-faults.test.js'],
    });
  });

  it('names the serial entries that match no file', () => {
    expect(unmatchedSerialSuites(['dist/test/integration/etcd-faults.test.js'], serial)).to.deep.equal(['dist/test/e2e/gone.test.js']);
  });

  it('the serial entries all name compiled suites of .mocharc.js, and the two groups hold every suite once', () => {
    const files = specFiles((require(path.join(ROOT, '.mocharc.js')) as { spec: string[] }).spec, ROOT);
    expect(files.length, 'compiled suites found').to.be.greaterThan(200);
    expect(unmatchedSerialSuites(files)).to.deep.equal([]);
    const { parallel, serial: serialGroup } = splitSuites(files);
    expect(serialGroup.length).to.be.at.least(SERIAL_SUITES.length);
    expect([...parallel, ...serialGroup].sort()).to.deep.equal(files);
    for (const why of SERIAL_SUITES.map((s) => s.why)) expect(why, 'each serial entry says why').to.match(/\w{3,}/);
  });
});
