/**
 * Service-account token keys: one private key signs (--service-account-signing-key-file, or a
 * 2048-bit RSA key generated once under <data-dir>/pki), every public key verifies
 * (--service-account-key-file, repeatable: public keys, private keys or certificates, RSA or EC,
 * plus the signing key's own). Key IDs are Kubernetes': the unpadded base64url SHA-256 of the
 * public key's DER (SubjectPublicKeyInfo), so JWKS and `kid` headers match what clients expect.
 */
import { KeyObject, KeyPairKeyObjectResult, X509Certificate, createHash, createPrivateKey, createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import path from 'node:path';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  kid: string;
  alg: SigningAlgorithm;
  key: KeyObject;
}

export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

export interface ServiceAccountKeys {
  signing: SigningKey;
  /** Every key a token may be verified with (the signing key's public key first). */
  verification: VerificationKey[];
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;
const EC_ALGORITHMS: Record<string, SigningAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** The JWS algorithm of a public key, or the reason it cannot sign tokens. */
function algorithmOf(key: KeyObject): SigningAlgorithm | string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
    return EC_ALGORITHMS[curve] ?? `EC curve ${curve || '(unknown)'} is not supported`;
  }
  return `${key.asymmetricKeyType ?? 'unknown'} keys are not supported (RSA or EC only)`;
}

function verificationKey(publicKey: KeyObject, source: string): VerificationKey {
  const alg = algorithmOf(publicKey);
  if (!['RS256', 'ES256', 'ES384', 'ES512'].includes(alg)) throw new Error(`${source}: ${alg}`);
  return { kid: keyId(publicKey), alg: alg as SigningAlgorithm, key: publicKey };
}

/** Every public key of a PEM file: public and private key blocks and certificates. */
export function readVerificationKeys(file: string): VerificationKey[] {
  const text = readKeyFile(file);
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (!blocks.length) throw new Error(`${file}: no PEM key or certificate found`);
  return blocks.map(([pem, label], i) => {
    const source = `${file} (block ${i + 1}, ${label})`;
    let publicKey: KeyObject;
    try {
      publicKey = label === 'CERTIFICATE' ? new X509Certificate(pem).publicKey
        : label.includes('PRIVATE') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
    } catch (err) {
      throw new Error(`${source}: does not parse: ${(err as Error).message}`);
    }
    return verificationKey(publicKey, source);
  });
}

/** The private key of a PEM file (PKCS#1, PKCS#8 or SEC1). */
export function readSigningKey(file: string): SigningKey {
  const text = readKeyFile(file);
  const block = [...text.matchAll(PEM_BLOCK)].find(([, label]) => label.includes('PRIVATE KEY'));
  if (!block) throw new Error(`${file}: no PEM private key found`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(block[0]);
  } catch (err) {
    throw new Error(`${file}: private key does not parse: ${(err as Error).message}`);
  }
  return { ...verificationKey(createPublicKey(privateKey), file), privateKey };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

const generateRsaKeyPair = () => promisify(generateKeyPair)('rsa', { modulusLength: 2048 });

/**
 * The key loadServiceAccountKeys will make (a first start without --service-account-signing-key-file),
 * begun now on Node's thread pool so that it is made while other work goes on; nothing is written.
 */
export function serviceAccountKeyInAdvance(opts: { signingKeyFile: string; pkiDir: string }): Promise<KeyPairKeyObjectResult> | undefined {
  if (opts.signingKeyFile || existsSync(path.join(opts.pkiDir, 'sa.key'))) return undefined;
  const made = generateRsaKeyPair();
  made.catch(() => undefined); // awaited by loadServiceAccountKeys, or dropped with a start that failed first
  return made;
}

/**
 * The keys from the flags; without --service-account-signing-key-file, `<pkiDir>/sa.key` (made
 * at first start, kept after). Verification keys without duplicates, the signing key's first.
 */
export async function loadServiceAccountKeys(opts: {
  signingKeyFile: string; keyFiles: string[]; pkiDir: string; log?: (m: string) => void;
  /** serviceAccountKeyInAdvance's key, when it made one. */
  made?: Promise<KeyPairKeyObjectResult>;
}): Promise<ServiceAccountKeys> {
  let signingFile = opts.signingKeyFile;
  if (!signingFile) {
    signingFile = path.join(opts.pkiDir, 'sa.key');
    if (!existsSync(signingFile)) {
      const { privateKey, publicKey } = await (opts.made ?? generateRsaKeyPair());
      await fsp.mkdir(opts.pkiDir, { recursive: true });
      await fsp.writeFile(signingFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      await fsp.writeFile(path.join(opts.pkiDir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
      opts.log?.(`generated the service-account signing key ${signingFile}`);
    }
  }
  const signing = readSigningKey(signingFile);
  const verification: VerificationKey[] = [{ kid: signing.kid, alg: signing.alg, key: signing.key }];
  for (const file of opts.keyFiles) {
    for (const k of readVerificationKeys(file)) if (!verification.some((v) => v.kid === k.kid)) verification.push(k);
  }
  return { signing, verification };
}
