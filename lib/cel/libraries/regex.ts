/**
 * Regular expressions in CEL as Kubernetes 1.32 has them: the standard `matches` (receiver and
 * global forms) on RE2 rather than the engine's JavaScript RegExp (RE2 syntax, linear time, an
 * invalid pattern is an error), and Kubernetes' regex library (library/regex.go): `find` (the
 * leftmost match or '') and `findAll` (all matches, or at most a limit; a negative limit means all).
 *
 * Cost (library/cost.go): find, findAll and matches cost ceil((1 + size(receiver)) * 0.1) *
 * ceil(size(pattern) * 0.25) (REGEX_COSTS).
 */

import type { Environment } from '@marcbachmann/cel-js';
import { registerLibrary } from '../environment';
import { replaceOverload } from './engine';
import { compileRe2, findAllStrings, findString } from './re2-search';
import { REGEX_LENGTH, STRING_TRAVERSAL, type CostTable } from './cost-table';

function matches(s: string, pattern: string): boolean {
  return compileRe2(pattern).test(s);
}

export const REGEX_COSTS: CostTable = {
  'string.matches': { kind: 'product', of: ['receiver', 'arg0'], factor: STRING_TRAVERSAL, factor2: REGEX_LENGTH, note: 'string cost uses 1 + size(receiver)' },
  matches: { kind: 'product', of: ['arg0', 'arg1'], factor: STRING_TRAVERSAL, factor2: REGEX_LENGTH },
  'string.find': { kind: 'product', of: ['receiver', 'arg0'], factor: STRING_TRAVERSAL, factor2: REGEX_LENGTH, note: 'string cost uses 1 + size(receiver)' },
  'string.findAll': { kind: 'product', of: ['receiver', 'arg0'], factor: STRING_TRAVERSAL, factor2: REGEX_LENGTH, note: 'string cost uses 1 + size(receiver)' },
};

/** Installs RE2 `matches` in place of the engine's (called last by the index: see replaceOverload). */
export function installRe2Matches(env: Environment): void {
  replaceOverload(env, '"".matches("")', 'string.matches(string): bool', matches);
}

registerLibrary((env) => {
  env.registerFunction('matches(string, string): bool', matches);
  env.registerFunction('string.find(string): string', (s: string, pattern: string) => findString(compileRe2(pattern, 'Illegal regex: '), s));
  env.registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) => findAllStrings(compileRe2(pattern, 'Illegal regex: '), s, -1));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, pattern: string, limit: bigint) =>
    findAllStrings(compileRe2(pattern, 'Illegal regex: '), s, limit < 0n ? -1 : Number(limit > 1_000_000_000n ? 1_000_000_000n : limit)),
  );
});
