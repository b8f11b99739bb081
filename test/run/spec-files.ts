/**
 * The test files a mocha spec names: the globs of .mocharc.js (`**` any folders, `*` any part of
 * one name) expanded under a root, as mocha expands them, so that the runner can split the same
 * files into groups.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** A glob of `/`-separated segments as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches no folder or any number of them; a trailing `**` anything.
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:[^/]+/)*' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** The part of a glob before its first segment with a wildcard: the folder to walk. */
function staticPrefix(glob: string): string {
  const segments = glob.split('/');
  const fixed: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (/[*?]/.test(s)) break;
    fixed.push(s);
  }
  return fixed.join('/');
}

function walk(root: string, dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) walk(root, rel, out);
    else if (e.isFile()) out.push(rel);
  }
}

/**
 * The files that match any of `globs` (`/`-separated; relative ones under `root`, and returned
 * relative to it), each once, sorted, so that a run is reproducible.
 */
export function specFiles(globs: readonly string[], root: string): string[] {
  const found = new Set<string>();
  for (const glob of globs) {
    const absolute = glob.startsWith('/');
    const rel = absolute ? glob.slice(1) : glob;
    const re = globToRegExp(rel);
    const files: string[] = [];
    walk(absolute ? '/' : root, staticPrefix(rel), files);
    for (const f of files) if (re.test(f)) found.add(absolute ? `/${f}` : f);
  }
  return [...found].sort();
}
