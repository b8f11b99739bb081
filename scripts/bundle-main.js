/**
 * dist/bundle/main.js, the production entry point (copied here by scripts/bundle.js): runs the
 * bundled server, dist/bundle/orch-apiserver.js, as Node would run it as a CommonJS module, with
 * V8's code cache of it (orch-apiserver.js.cache, made by the build): a start then compiles almost
 * none of the server's code, which was about 40% of a start's module-loading CPU once bundled. A
 * cache V8 refuses (another Node, other V8 flags, a changed bundle) is ignored: the code is then
 * compiled as without one. Required rather than run (scripts/bundle.js making the cache), it only
 * exports compile().
 */
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const BUNDLE = path.join(__dirname, 'orch-apiserver.js');
const CACHE = `${BUNDLE}.cache`;

/** The bundle compiled as a CommonJS module's function (with `cachedData` when given). */
function compile(cachedData) {
  return new vm.Script(Module.wrap(readFileSync(BUNDLE, 'utf8')), { filename: BUNDLE, cachedData });
}

/** Runs the compiled bundle as the module `BUNDLE`. */
function run(script) {
  const mod = new Module(BUNDLE, null);
  mod.filename = BUNDLE;
  mod.paths = Module._nodeModulePaths(__dirname);
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(BUNDLE), mod, BUNDLE, __dirname);
  mod.loaded = true;
}

function cachedData() {
  try {
    return readFileSync(CACHE);
  } catch {
    return undefined;
  }
}

if (require.main === module) run(compile(cachedData()));

module.exports = { compile, run, CACHE };
