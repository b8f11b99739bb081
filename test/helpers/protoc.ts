/**
 * The real protoc, for byte-compatibility vectors made independently of our protobufjs codec.
 * protoc and descriptor.proto (imported by proto/options.proto) come from Debian's
 * protobuf-compiler and libprotobuf-dev, which `make install` installs (as root); the tests only
 * check for them, so that suites running in parallel never race for apt's lock.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { protoDir } from '../../lib/scheme/protobuf/loader';

/** Every .proto file of the project, as protoc arguments. */
function protoFiles(): string[] {
  const dir = protoDir();
  return readdirSync(dir).filter((f) => f.endsWith('.proto')).map((f) => `${dir}/${f}`);
}

/** Throws, naming what to install, unless protoc compiles all of proto/. */
export function requireProtoc(): void {
  const run = spawnSync('protoc', [`-I${protoDir()}`, '--descriptor_set_out=/dev/null', ...protoFiles()], { encoding: 'utf8' });
  if (run.status === 0) return;
  const why = run.error ? `protoc cannot be run (${run.error.message})` : `protoc cannot compile proto/: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  throw new Error(`${why}. The byte-compatibility vectors need protoc with google/protobuf/descriptor.proto: `
    + 'run `make install` as root, or `sudo apt-get install -y protobuf-compiler libprotobuf-dev`');
}

/** `protoc --encode=<messageType>` of a textproto against all of proto/. */
export function protocEncode(messageType: string, textproto: string): Buffer {
  const dir = protoDir();
  return execFileSync('protoc', [`-I${dir}`, '--deterministic_output', `--encode=${messageType}`, ...protoFiles()], { input: textproto, cwd: dir });
}

/** gnostic's OpenAPI v2 messages (proto/openapiv2/, kept apart from the kinds' files). */
const OPENAPI_V2_DIR = () => `${protoDir()}/openapiv2`;

/** `protoc --decode=openapi.v2.Document` of served `/openapi/v2` protobuf bytes; throws when protoc cannot decode them. */
export function protocDecodeOpenApiV2(bytes: Buffer | Uint8Array): string {
  const dir = OPENAPI_V2_DIR();
  return execFileSync('protoc', [`-I${dir}`, '--decode=openapi.v2.Document', `${dir}/openapiv2.proto`], { input: bytes, cwd: dir, maxBuffer: 512 * 1024 * 1024 }).toString('utf8');
}

/** `protoc --encode=openapi.v2.<messageType>` of a textproto (independent vectors for the converter). */
export function protocEncodeOpenApiV2(messageType: string, textproto: string): Buffer {
  const dir = OPENAPI_V2_DIR();
  return execFileSync('protoc', [`-I${dir}`, '--deterministic_output', `--encode=openapi.v2.${messageType}`, `${dir}/openapiv2.proto`], { input: textproto, cwd: dir, maxBuffer: 512 * 1024 * 1024 });
}
