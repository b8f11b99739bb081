/**
 * The runner of `make test` (test/run/main.ts) on suites made for the purpose: its last line adds
 * up the tests of every file, whichever worker ran it, and its exit code says whether all passed.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAIN = path.resolve(__dirname, '../../run/main.js');

function runner(args: string[]): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 60_000 }, (err, stdout) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, lines: stdout.trimEnd().split('\n') });
    });
  });
}

describe('the make test runner', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-runner-'));
    writeFileSync(path.join(dir, 'a.test.js'), "describe('a', () => { it('one', () => {}); it('two', () => {}); it('later', function () { this.skip(); }); });\n");
    writeFileSync(path.join(dir, 'b.test.js'), "describe('b', () => { it('three', () => {}); it('four', () => { throw new Error('no'); }); });\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ends with the line of all files together, after each group\'s own, and exits 1 on a failure', async () => {
    const { code, lines } = await runner(['--jobs=2', `${dir}/*.test.js`]);
    expect(lines[0]).to.equal('2 test files: 2 in parallel (2 jobs), then 0 one at a time');
    expect(lines).to.include('parallel group: 3 passed, 1 failed, 1 skipped');
    expect(lines.some((l) => /^parallel group \(2 files\): 3 passed, 1 failed, 1 skipped in \d+m \d+s$/.test(l))).to.equal(true);
    expect(lines[lines.length - 1]).to.equal('3 passed, 1 failed, 1 skipped');
    // The failure is named again just before the last line, so a log cut to its tail shows it.
    expect(lines[lines.length - 2]).to.match(/^failed: .*b\.test\.js: b four: no$/);
    expect(code).to.equal(1);
  });

  it('exits 0 when every test passed; refuses an unknown option', async () => {
    const ok = await runner([`${dir}/a.test.js`]);
    expect(ok.lines[ok.lines.length - 1]).to.equal('2 passed, 0 failed, 1 skipped');
    expect(ok.code).to.equal(0);
    expect((await runner(['--job=2'])).code).to.equal(2);
  });
});
