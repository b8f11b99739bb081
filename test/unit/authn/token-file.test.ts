import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TokenFileAuthenticator, parseTokenFile } from '../../../lib/authn/token-file';
import { AuthResult } from '../../../lib/authn/authenticator';

const FILE = '/etc/orch/tokens.csv';
const user = (r: AuthResult) => (r.kind === 'user' ? r.user : r);

/** The authenticator of a file's text (warnings collected). */
function fromText(text: string): { auth: TokenFileAuthenticator; warnings: string[] } {
  const { users, warnings } = parseTokenFile(text, FILE);
  return { auth: new TokenFileAuthenticator(users), warnings };
}

function parseError(text: string): Error {
  try {
    parseTokenFile(text, FILE);
  } catch (err) {
    return err as Error;
  }
  throw new Error('no error');
}

describe('static token file (--token-auth-file)', () => {
  it('reads token,user,uid as a user with that uid and no groups', () => {
    const { auth, warnings } = fromText('tok-alice,alice,uid-1\n');
    expect(user(auth.authenticateToken('tok-alice'))).to.deep.equal({ name: 'alice', uid: 'uid-1', groups: [] });
    expect(warnings).to.deep.equal([]);
  });

  it('splits the fourth column on commas into groups (quoted when several)', () => {
    const { auth } = fromText('tok-bob,bob,uid-2,"dev,ops"\ntok-carol,carol,uid-3,viewers\n');
    expect(user(auth.authenticateToken('tok-bob'))).to.deep.equal({ name: 'bob', uid: 'uid-2', groups: ['dev', 'ops'] });
    expect(user(auth.authenticateToken('tok-carol'))).to.deep.equal({ name: 'carol', uid: 'uid-3', groups: ['viewers'] });
  });

  it('ignores columns after the fourth', () => {
    const { auth } = fromText('tok,dave,uid-4,admins,ignored,"also ignored"\n');
    expect(user(auth.authenticateToken('tok'))).to.deep.equal({ name: 'dave', uid: 'uid-4', groups: ['admins'] });
  });

  it('keeps an empty fourth column as Go does (strings.Split("") is one empty group)', () => {
    const { auth } = fromText('tok,erin,uid-5,\n');
    expect(user(auth.authenticateToken('tok'))).to.deep.equal({ name: 'erin', uid: 'uid-5', groups: [''] });
  });

  it('leaves out an empty uid', () => {
    const { auth } = fromText('tok,frank,\n');
    expect(user(auth.authenticateToken('tok'))).to.deep.equal({ name: 'frank', groups: [] });
  });

  it('reads quoted fields with commas and doubled quotes', () => {
    const { auth } = fromText('"to,k""1","o\'brien, ""the"" user",uid-6,"a,""b"""\n');
    expect(user(auth.authenticateToken('to,k"1'))).to.deep.equal({ name: 'o\'brien, "the" user', uid: 'uid-6', groups: ['a', '"b"'] });
  });

  it('skips empty lines and reads CRLF line ends (no \\r in the last field)', () => {
    const { auth } = fromText('\r\n\r\ntok1,u1,id1\r\n\r\ntok2,u2,id2,"g1,g2"\r\n');
    expect(user(auth.authenticateToken('tok1'))).to.deep.equal({ name: 'u1', uid: 'id1', groups: [] });
    expect(user(auth.authenticateToken('tok2'))).to.deep.equal({ name: 'u2', uid: 'id2', groups: ['g1', 'g2'] });
  });

  it('reads a last line without a newline, a lone \\r before the end dropped', () => {
    const { auth } = fromText('tok1,u1,id1\r\ntok2,u2,id2\r');
    expect(user(auth.authenticateToken('tok2'))).to.deep.equal({ name: 'u2', uid: 'id2', groups: [] });
  });

  it('answers not-mine for an unknown token, a prefix of a token, or a different case', () => {
    const { auth } = fromText('Secret-Token,alice,1\n');
    for (const t of ['other', 'Secret-Tok', 'secret-token', 'Secret-Token ', '']) {
      expect(auth.authenticateToken(t), JSON.stringify(t)).to.deep.equal({ kind: 'none' });
    }
  });

  it('skips a record with an empty token, with a warning naming its line', () => {
    const { auth, warnings } = fromText('tok1,u1,id1\n,nobody,id0\n');
    expect(auth.authenticateToken('')).to.deep.equal({ kind: 'none' });
    expect(user(auth.authenticateToken('tok1'))).to.include({ name: 'u1' });
    expect(warnings).to.deep.equal([`--token-auth-file ${FILE}: line 2: empty token, record skipped`]);
  });

  it('keeps the last record of a repeated token, with a warning naming its line and not the token', () => {
    const { auth, warnings } = fromText('dup-token,first,1\nother,o,2\ndup-token,second,3,late\n');
    expect(user(auth.authenticateToken('dup-token'))).to.deep.equal({ name: 'second', uid: '3', groups: ['late'] });
    expect(warnings).to.deep.equal([`--token-auth-file ${FILE}: line 3: duplicate token, this record replaces the earlier one`]);
    expect(warnings.join()).not.to.include('dup-token');
  });

  it('refuses a record of fewer than 3 columns, naming the flag, the file and the line', () => {
    const err = parseError('tok1,u1,id1\n\nsecret-token-xyz,u2\n');
    expect(err.message).to.equal(`--token-auth-file ${FILE}: line 3: must have at least 3 columns (token, user name, user uid), found 2`);
    expect(parseError('only-a-token').message).to.match(/line 1: .* found 1$/);
  });

  it('refuses a bare quote with its line and column', () => {
    const err = parseError('tok1,u1,id1\nsecret"token,u2,id2\n');
    expect(err.message).to.equal(`--token-auth-file ${FILE}: parse error on line 2, column 7: bare " in non-quoted-field`);
  });

  it('refuses an unterminated or extraneous quote, naming where the record starts', () => {
    expect(parseError('tok1,u1,id1\n"secret-token,u2,id2\nmore\n').message)
      .to.equal(`--token-auth-file ${FILE}: record on line 2; parse error on line 3, column 6: extraneous or missing " in quoted-field`);
    expect(parseError('"secret"token,u,1\n').message)
      .to.equal(`--token-auth-file ${FILE}: parse error on line 1, column 8: extraneous or missing " in quoted-field`);
  });

  it('never puts token text in an error or a warning', () => {
    const token = 'Sup3rS3cretT0ken';
    for (const text of [`${token}\n`, `${token},u\n`, `${token}"x,u,1\n`, `"${token}"x,u,1\n`, `"${token},u,1\n`, `a,b,c\n"${token}`]) {
      const err = parseError(text);
      expect(err.message, text).not.to.include(token);
      expect(err.message.split('\n')).to.have.length(1);
    }
    const { warnings } = fromText(`${token},a,1\n${token},b,2\n,c,3\n`);
    expect(warnings).to.have.length(2);
    expect(warnings.join('\n')).not.to.include(token);
  });

  it('hands out copies: changing a returned user does not change the next answer', () => {
    const { auth } = fromText('tok,alice,1,"a,b"\n');
    const first = auth.authenticateToken('tok');
    if (first.kind !== 'user') throw new Error('not a user');
    first.user.groups.push('system:masters');
    expect(user(auth.authenticateToken('tok'))).to.deep.equal({ name: 'alice', uid: '1', groups: ['a', 'b'] });
  });

  describe('fromFile', () => {
    let dir: string;
    before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'token-file-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the file and passes the warnings on', () => {
      const file = path.join(dir, 'ok.csv');
      writeFileSync(file, 'tok,alice,1\n,empty,2\n');
      const warnings: string[] = [];
      const auth = TokenFileAuthenticator.fromFile(file, (m) => warnings.push(m));
      expect(user(auth.authenticateToken('tok'))).to.deep.equal({ name: 'alice', uid: '1', groups: [] });
      expect(warnings).to.deep.equal([`--token-auth-file ${file}: line 2: empty token, record skipped`]);
    });

    it('refuses a missing file with one line naming the flag and the file', () => {
      const file = path.join(dir, 'missing.csv');
      expect(() => TokenFileAuthenticator.fromFile(file, () => undefined)).to.throw(Error, `--token-auth-file ${file}: ENOENT`);
    });

    it('accepts an empty file (no tokens)', () => {
      const file = path.join(dir, 'empty.csv');
      writeFileSync(file, '');
      expect(TokenFileAuthenticator.fromFile(file, () => undefined).authenticateToken('x')).to.deep.equal({ kind: 'none' });
    });
  });
});
