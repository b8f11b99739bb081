#!/usr/bin/env node
/**
 * The production entry point as one file (issue 44: start-up time), run by `npm run build` and
 * `make build` after tsc. In dist/bundle/:
 * - orch-apiserver.js: esbuild's bundle of the compiled dist/lib/server/main.js, and
 *   v2-protobuf-thread.js beside it (the OpenAPI v2 encoder's worker thread, which lib/ finds
 *   beside its own file, as --workers finds main.js);
 * - main.js: scripts/bundle-main.js, which runs orch-apiserver.js with V8's code cache of it;
 * - orch-apiserver.js.cache: that cache, made by running the bundle once (`--version`: every
 *   module loaded, nothing started) and keeping what V8 compiled.
 * One file instead of ~1,300 modules cut a start's module-loading CPU by about 40%, the code cache
 * as much again (docs/startup.md). proto/ is found by walking up from dist/bundle/ as from dist/lib/.
 * External: the native addon (@bufbuild/re2) and the etcd3 package's client with its gRPC
 * (lib/storage/etcd3pkg loads grpc-js through etcd3's own resolution: one copy, from node_modules).
 */
const { execFileSync } = require('node:child_process');
const { copyFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist/bundle');

if (process.argv[2] === '--code-cache') {
  // In a process of its own, as a start: the bundle run with --version, then its code cache kept.
  const { compile, run, CACHE } = require(path.join(out, 'main.js'));
  const script = compile();
  process.argv = [process.argv[0], path.join(out, 'main.js'), '--version'];
  run(script);
  writeFileSync(CACHE, script.createCachedData());
  process.exit(0);
}

rmSync(out, { recursive: true, force: true });
require('esbuild').buildSync({
  entryPoints: {
    'orch-apiserver': path.join(root, 'dist/lib/server/main.js'),
    'v2-protobuf-thread': path.join(root, 'dist/lib/api/openapi/v2-protobuf-thread.js'),
  },
  outdir: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['@bufbuild/re2', 'etcd3', '@grpc/grpc-js', 'cockatiel'],
  sourcemap: 'linked',
  logLevel: 'error',
});
copyFileSync(path.join(__dirname, 'bundle-main.js'), path.join(out, 'main.js'));
execFileSync(process.execPath, [__filename, '--code-cache'], { stdio: ['ignore', 'ignore', 'inherit'] });
