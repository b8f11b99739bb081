/**
 * An OpenID Connect issuer served by the test itself over HTTPS on loopback: its discovery
 * document and key set (JWKS) under the issuer URL, a certificate of its own CA (the file to pass
 * as --oidc-ca-file), and ID tokens signed with its keys. It can be created before it listens
 * (an issuer down at the server's start) and can rotate to a new signing key.
 */
import https from 'node:https';
import { freeLoopbackPort } from './free-port';
import { KeyObject, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JWK, SignJWT, exportJWK } from 'jose';
import { ensurePki } from '../../lib/server/pki';

interface SigningKey { kid: string; alg: string; privateKey: KeyObject; jwk: JWK }

export interface SignOptions {
  alg?: string;
  /** Default: the current signing key's; null: no kid in the header. */
  kid?: string | null;
  /** Default: the current signing key. */
  key?: KeyObject | Uint8Array;
}


async function newKey(kid: string, type: 'rsa' | 'ec'): Promise<SigningKey> {
  const { privateKey, publicKey } = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const alg = type === 'rsa' ? 'RS256' : 'ES256';
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export class TestOidcProvider {
  /** Requests for the discovery document and the key set (what the API server fetched). */
  discoveryFetches = 0;
  jwksFetches = 0;
  private readonly keys: SigningKey[] = [];
  private signing!: SigningKey;
  private server?: https.Server;
  private rotations = 0;

  private constructor(
    readonly issuer: string, readonly caFile: string, readonly caPem: string,
    private readonly port: number, private readonly basePath: string, private readonly dir: string,
    private readonly tls: { cert: Buffer; key: Buffer },
  ) {}

  /** Not yet listening: call listen(). `basePath` (e.g. `/tenants/a`) is part of the issuer URL. */
  static async create(basePath = ''): Promise<TestOidcProvider> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-oidc-'));
    const pki = await ensurePki(dir, { serverHosts: ['127.0.0.1'] });
    const port = await freeLoopbackPort();
    const p = new TestOidcProvider(`https://127.0.0.1:${port}${basePath}`, pki.caCertFile, pki.caCertPem, port, basePath, dir,
      { cert: readFileSync(pki.serverCertFile), key: readFileSync(pki.serverKeyFile) });
    p.signing = await newKey('rsa-1', 'rsa');
    p.keys.push(p.signing, await newKey('ec-1', 'ec'));
    return p;
  }

  async listen(): Promise<void> {
    const server = https.createServer(this.tls, (req, res) => {
      const url = req.url ?? '';
      const send = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url === `${this.basePath}/.well-known/openid-configuration`) {
        this.discoveryFetches++;
        return send({
          issuer: this.issuer, jwks_uri: `${this.issuer}/keys`, authorization_endpoint: `${this.issuer}/auth`,
          response_types_supported: ['id_token'], subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256', 'ES256'],
        });
      }
      if (url === `${this.basePath}/keys`) {
        this.jwksFetches++;
        return send({ keys: this.keys.map((k) => k.jwk) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** A new RSA key, published next to the old ones and used for every later token; its kid. */
  async rotate(): Promise<string> {
    this.signing = await newKey(`rsa-rotated-${++this.rotations}`, 'rsa');
    this.keys.push(this.signing);
    return this.signing.kid;
  }

  /** The private key of a published kid (for tokens signed with a non-current key). */
  privateKey(kid: string): KeyObject {
    const k = this.keys.find((x) => x.kid === kid);
    if (!k) throw new Error(`no key ${kid}`);
    return k.privateKey;
  }

  /** An ID token: iss, aud and a 10-minute exp by default, overridden (or removed with undefined) by `claims`. */
  sign(claims: Record<string, unknown>, opts: SignOptions = {}): Promise<string> {
    const kid = opts.kid === undefined ? this.signing.kid : opts.kid;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, iat: now, exp: now + 600, ...claims })
      .setProtectedHeader({ alg: opts.alg ?? this.signing.alg, ...(kid === null ? {} : { kid }) })
      .sign(opts.key ?? this.signing.privateKey);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  }

  async dispose(): Promise<void> {
    await this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
