/**
 * E2E helper for Debian's python3-kubernetes: the interpreter apt installs it for, a runner that
 * never rejects, and the check that the package is there (`make install` installs it, as root;
 * the tests do not, so that suites running in parallel never race for apt's lock).
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

/** Throws, naming what to install, unless /usr/bin/python3 can `import kubernetes`. */
export async function requirePythonKubernetes(): Promise<void> {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} does not exist: install Debian's python3 and python3-kubernetes (\`make install\` as root)`);
  const probe = await run(PYTHON, ['-c', 'import kubernetes'], 30_000);
  if (probe.code === 0) return;
  throw new Error(`${PYTHON} cannot import kubernetes: run \`make install\` as root, or \`sudo apt-get install -y python3-kubernetes\`\n${probe.stderr.trim()}`);
}
