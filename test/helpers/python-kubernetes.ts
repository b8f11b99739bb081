/**
 * E2E helper for Debian's python3-kubernetes: the interpreter apt installs it for, a runner that
 * never rejects, and the set-up that installs the package when it is missing (as root).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's interpreter, where apt installs python3-kubernetes (a pyenv python3 may be first on PATH). */
export const PYTHON = '/usr/bin/python3';

export interface RunResult { code: number | null; stdout: string; stderr: string }

/** Runs `cmd`; `code` is null when it could not run (ENOENT ...) or was killed after `timeoutMs`. */
export function run(cmd: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 << 20, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
      (err, stdout, stderr) => {
        // A numeric code is the exit status; a string one (ENOENT ...) means it did not run.
        const e = err as (Error & { code?: number | string }) | null;
        const code = !e ? 0 : typeof e.code === 'number' ? e.code : null;
        resolve({ code, stdout, stderr: e && code === null ? `${stderr}${e.message}` : stderr });
      });
  });
}

/**
 * Makes `import kubernetes` work in /usr/bin/python3: as root, apt-get installs
 * python3-kubernetes (after apt-get update when the package is unknown). Throws with the reason.
 */
export async function ensurePythonKubernetes(): Promise<void> {
  const importable = () => run(PYTHON, ['-c', 'import kubernetes'], 30_000);
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} does not exist: install Debian's python3 and python3-kubernetes`);
  let probe = await importable();
  if (probe.code === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${PYTHON} cannot import kubernetes and this is not root: `
      + `run \`sudo apt-get install -y python3-kubernetes\`\n${probe.stderr}`);
  }
  let install = await run('apt-get', ['install', '-y', 'python3-kubernetes'], 240_000);
  if (install.code !== 0 && /Unable to locate package|no installation candidate/.test(install.stderr)) {
    await run('apt-get', ['update'], 120_000);
    install = await run('apt-get', ['install', '-y', 'python3-kubernetes'], 240_000);
  }
  probe = await importable();
  if (probe.code !== 0) {
    throw new Error(`python3-kubernetes is not importable by ${PYTHON} after apt-get install (exit ${install.code}):\n`
      + `${install.stderr.slice(-2000)}\n${probe.stderr}`);
  }
}
