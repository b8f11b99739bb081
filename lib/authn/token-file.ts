/**
 * Static bearer tokens (--token-auth-file): a CSV of `token,user,uid[,"group1,group2"]`, read once
 * at start (changes need a restart), parsed as kube-apiserver parses it: at least three columns,
 * further columns ignored but the fourth, whose comma-separated names are the groups; a record
 * with an empty token is skipped; a repeated token keeps its last record. A bad record stops the
 * start with its line number. Tokens are kept only as SHA-256 digests and looked up by digest, so
 * the comparison takes the same time whatever the token.
 */
import { readFileSync } from 'node:fs';
import { AuthResult, NOT_MINE, TokenAuthenticator, authenticated } from './authenticator';
import { TokenCache } from './token-cache';
import { UserInfo } from '../meta/user';
import { CsvError, parseCsv } from './csv';

export interface TokenFileEntries {
  users: Map<string, UserInfo>;
  /** Lines of records skipped or overridden, for start-up warnings (no token text). */
  warnings: string[];
}

const FLAG = '--token-auth-file';

/**
 * Parses the file's text; throws a one-line Error naming the flag, the file and the line of a bad
 * record (never its text: a token may be on it).
 */
export function parseTokenFile(text: string, path: string): TokenFileEntries {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new Error(`${FLAG} ${path}: ${err.message}`);
    throw err;
  }
  const users = new Map<string, UserInfo>();
  const warnings: string[] = [];
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new Error(`${FLAG} ${path}: line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, name, uid] = fields;
    if (token === '') {
      warnings.push(`${FLAG} ${path}: line ${line}: empty token, record skipped`);
      continue;
    }
    const key = TokenCache.keyOf(token);
    if (users.has(key)) warnings.push(`${FLAG} ${path}: line ${line}: duplicate token, this record replaces the earlier one`);
    const user: UserInfo = { name, groups: fields.length >= 4 ? fields[3].split(',') : [] };
    if (uid) user.uid = uid;
    users.set(key, user);
  }
  return { users, warnings };
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly name = 'token-file';

  constructor(private readonly users: Map<string, UserInfo>) {}

  static fromFile(path: string, warn: (message: string) => void): TokenFileAuthenticator {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new Error(`${FLAG} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const { users, warnings } = parseTokenFile(text, path);
    warnings.forEach(warn);
    return new TokenFileAuthenticator(users);
  }

  authenticateToken(token: string): AuthResult {
    const user = this.users.get(TokenCache.keyOf(token));
    // A copy: later stages may add groups to the user they are handed.
    return user ? authenticated({ ...user, groups: [...user.groups] }) : NOT_MINE;
  }
}
