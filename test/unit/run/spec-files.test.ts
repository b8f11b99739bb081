/**
 * The runner's glob expansion (test/run/spec-files.ts): the files mocha's spec globs name, so that
 * splitting them into groups neither drops nor adds a suite.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globToRegExp, specFiles } from '../../run/spec-files';

describe('specFiles', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'orch-spec-files-'));
    for (const f of ['dist/test/unit/a.test.js', 'dist/test/unit/a.test.js.map', 'dist/test/unit/deep/er/b.test.js',
      'dist/test/unit/helper.js', 'dist/test/integration/c.test.js', 'dist/test/e2e/d.test.js']) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), '');
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('globToRegExp: ** spans any number of folders (none too), * and ? stay inside one name', () => {
    const re = globToRegExp('dist/test/**/*.test.js');
    expect(['dist/test/a.test.js', 'dist/test/x/a.test.js', 'dist/test/x/y/a.test.js'].every((f) => re.test(f))).to.equal(true);
    expect(['dist/test/a.test.js.map', 'dist/testx/a.test.js', 'dist/test/x/a.test.ts'].some((f) => re.test(f))).to.equal(false);
    expect(globToRegExp('dist/test/integration/*-dos*.test.js').test('dist/test/integration/h2-dos-memory.test.js')).to.equal(true);
    expect(globToRegExp('dist/test/integration/*-dos*.test.js').test('dist/test/integration/x/h2-dos.test.js')).to.equal(false);
    expect(globToRegExp('a?c.js').test('abc.js')).to.equal(true);
    expect(globToRegExp('a.c').test('abc'), 'a dot is a dot').to.equal(false);
  });

  it('expands each glob under the root, deep files too, each file once, sorted', () => {
    expect(specFiles(['dist/test/unit/**/*.test.js', 'dist/test/**/*.test.js'], root)).to.deep.equal([
      'dist/test/e2e/d.test.js', 'dist/test/integration/c.test.js', 'dist/test/unit/a.test.js', 'dist/test/unit/deep/er/b.test.js',
    ]);
    expect(specFiles(['dist/test/unit/*.test.js'], root)).to.deep.equal(['dist/test/unit/a.test.js']);
  });

  it('an absolute glob gives absolute paths; a glob under a missing folder gives none', () => {
    expect(specFiles([`${root}/dist/test/integration/*.test.js`], '/nowhere')).to.deep.equal([`${root}/dist/test/integration/c.test.js`]);
    expect(specFiles(['dist/none/**/*.test.js'], root)).to.deep.equal([]);
  });
});
