/**
 * The packages of lib/lazy-packages.ts stay off a start's path (issue 44: start-up time): loading
 * the server's modules requires none of them. A static import of one anywhere under lib/ would
 * load it at every start again.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const LAZY = ['yaml', 'jose', 'ajv', 'tweetnacl', '@bufbuild/re2', 'node-forge'];
const SERVER_JS = path.resolve(__dirname, '../../../lib/server/server.js');

describe('lazy packages', () => {
  it('are not required by loading the server', () => {
    // Module._load sees every require, of CommonJS and ES modules alike (jose is an ES module).
    const script = `
      const Module = require('node:module');
      const load = Module._load;
      const asked = new Set();
      Module._load = function (request, ...rest) { asked.add(request); return load.call(this, request, ...rest); };
      require(${JSON.stringify(SERVER_JS)});
      process.stdout.write(JSON.stringify([...asked]));`;
    const asked: string[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(asked.length, 'modules required').to.be.above(100);
    expect(asked.filter((r) => LAZY.some((p) => r === p || r.startsWith(`${p}/`)))).to.deep.equal([]);
  });
});
