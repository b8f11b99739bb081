/**
 * The real protoc, for byte-compatibility vectors made independently of our protobufjs codec.
 * protoc and descriptor.proto (imported by proto/options.proto) come from Debian's
 * protobuf-compiler and libprotobuf-dev: installed when missing and running as root, else a
 * clear failure naming the command.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { protoDir } from '../../lib/scheme/protobuf/loader';

const PACKAGES = ['protobuf-compiler', 'libprotobuf-dev'];

/** Every .proto file of the project, as protoc arguments. */
function protoFiles(): string[] {
  const dir = protoDir();
  return readdirSync(dir).filter((f) => f.endsWith('.proto')).map((f) => `${dir}/${f}`);
}

export function ensureProtoc(): void {
  const works = () => spawnSync('protoc', [`-I${protoDir()}`, '--descriptor_set_out=/dev/null', ...protoFiles()]).status === 0;
  if (works()) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`protoc with google/protobuf/descriptor.proto is needed for the byte-compatibility vectors: run as root \`apt-get install -y ${PACKAGES.join(' ')}\``);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', ...PACKAGES], { env, stdio: 'ignore' }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update', '-q'], { env, stdio: 'ignore' });
    if (!install()) throw new Error(`apt-get install -y ${PACKAGES.join(' ')} failed: protoc is needed for the byte-compatibility vectors`);
  }
  if (!works()) throw new Error('protoc was installed but cannot compile proto/ (google/protobuf/descriptor.proto missing?)');
}

/** `protoc --encode=<messageType>` of a textproto against all of proto/. */
export function protocEncode(messageType: string, textproto: string): Buffer {
  const dir = protoDir();
  return execFileSync('protoc', [`-I${dir}`, '--deterministic_output', `--encode=${messageType}`, ...protoFiles()], { input: textproto, cwd: dir });
}
