#!/usr/bin/env node
/**
 * The production entry point as one file (issue 44: start-up time): esbuild bundles the compiled
 * dist/lib/server/main.js, and the OpenAPI v2 encoder's worker thread beside it, into dist/bundle/.
 * Loading one file instead of ~1,300 modules cuts a start's module loading by about 40% of its CPU
 * (docs/startup-bundle.md). Run by `npm run build` and `make build` after tsc.
 *
 * The two files keep their names (main.js, v2-protobuf-thread.js) so that what lib/ finds beside
 * its own file (--workers forking main.js, the v2 protobuf worker) is the bundled copy; proto/ is
 * found by walking up from dist/bundle/ as from dist/lib/. External: the native addon (@bufbuild/re2)
 * and the etcd3 package's client with its gRPC (lib/storage/etcd3pkg loads grpc-js through
 * etcd3's own resolution: one copy of it, from node_modules).
 */
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');

esbuild.buildSync({
  entryPoints: ['dist/lib/server/main.js', 'dist/lib/api/openapi/v2-protobuf-thread.js'].map((f) => path.join(root, f)),
  outdir: path.join(root, 'dist/bundle'),
  entryNames: '[name]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['@bufbuild/re2', 'etcd3', '@grpc/grpc-js', 'cockatiel'],
  sourcemap: 'linked',
  logLevel: 'error',
});
