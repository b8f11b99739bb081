/**
 * The .proto sources under proto/, parsed once with protobufjs. Types are looked up by their
 * Kubernetes full name (`k8s.io.api.core.v1.ConfigMap`), so every file keeps Kubernetes'
 * package names. Field names are kept as written: they are the JSON field names.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Root, Type } from 'protobufjs';

let root: Root | undefined;

/** proto/ at the top of the project, found from here whether running from lib/ or dist/lib/. */
export function protoDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'proto');
    if (existsSync(path.join(candidate, 'runtime.proto'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`no proto/ directory with runtime.proto above ${__dirname}`);
  }
}

/**
 * Every .proto file of proto/, loaded and resolved on the first call. Throws when a file does
 * not parse or a type does not resolve, so a broken file stops the server at start-up.
 */
export function loadProtoRoot(): Root {
  if (root) return root;
  const dir = protoDir();
  const next = new Root();
  // google/protobuf/descriptor.proto (for options.proto) comes with protobufjs.
  const bundled = path.dirname(require.resolve('protobufjs/package.json'));
  next.resolvePath = (origin, target) => (target.startsWith('google/protobuf/')
    ? path.join(bundled, target)
    : path.resolve(origin ? path.dirname(origin) : dir, target));
  const files = readdirSync(dir).filter((f) => f.endsWith('.proto')).sort().map((f) => path.join(dir, f));
  next.loadSync(files, { keepCase: true });
  next.resolveAll();
  root = next;
  return root;
}

/** The message type named `fullName` (no leading dot); throws when there is none. */
export function messageType(fullName: string): Type {
  return loadProtoRoot().lookupType(fullName);
}
