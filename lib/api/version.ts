/**
 * GET /version: the server's version.Info, shaped as kube-apiserver's: release 1.32, or under
 * `--emulated-version=1.N` release 1.N (kube-apiserver 1.32 still answers its binary's version
 * there; the emulated release is what release-1.N clients expect). The kubectl on the machines is
 * a dispatcher that picks its release by `minor`: for a minor it has no binary of (1.20) it runs
 * its own 1.32.
 */
import type Router from '@koa/router';
import { statSync } from 'fs';
import { endianness } from 'os';

/** Kubernetes' version.Info fields, in its order. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Node's process.arch in Go's GOARCH spelling (x64 -> amd64, ia32 -> 386), as clients expect. */
export function goArch(arch: string = process.arch): string {
  switch (arch) {
    case 'x64': return 'amd64';
    case 'ia32': return '386';
    case 'ppc64': return endianness() === 'LE' ? 'ppc64le' : 'ppc64';
    default: return arch;
  }
}

/** RFC 3339 in seconds with a Z, like Go's build dates ("2024-12-11T18:04:20Z"). */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The compiled file's modification time is the build time; falls back to now. */
function buildDate(): string {
  try {
    return rfc3339(statSync(__filename).mtime);
  } catch {
    return rfc3339(new Date());
  }
}

/** The /version document: defaults for this build, overridden field by field by `info`. */
export function versionInfo(info: Partial<VersionInfo> = {}): VersionInfo {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-orch',
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: buildDate(),
    goVersion: `node${process.version}`,
    compiler: 'tsc',
    platform: `${process.platform}/${goArch()}`,
    ...info,
  };
}

/** The fields that name release 1.`minor` (those of versionInfo's defaults for 1.32). */
export function releaseVersionInfo(minor: number): Partial<VersionInfo> {
  return { major: '1', minor: String(minor), gitVersion: `v1.${minor}.0-orch` };
}

/** Registers GET /version answering `versionInfo(info)` as `application/json`. */
export function installVersion(router: Router, info?: Partial<VersionInfo>): void {
  const body = versionInfo(info);
  router.get('/version', (ctx) => {
    ctx.status = 200;
    ctx.body = body;
    ctx.set('Content-Type', 'application/json');
  });
}
