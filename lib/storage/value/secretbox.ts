/**
 * kube-apiserver's secretbox provider (XSalsa20-Poly1305, NaCl's secretbox, 32-byte key):
 * stored as `nonce(24) || tag(16) || ciphertext`, the nonce random, no AAD. Node's crypto has no
 * XSalsa20; tweetnacl's secretbox has Go's x/crypto/nacl/secretbox layout (tag first).
 */
import { randomBytes } from 'node:crypto';
import { nacl } from '../../lazy-packages';
import { FromStorage, TransformError, ValueTransformer } from './transformer';

/** nacl.secretbox's nonceLength and overheadLength (tweetnacl loaded at the first use). */
const NONCE = 24;
const OVERHEAD = 16;

export class SecretboxTransformer implements ValueTransformer {
  private readonly key: Uint8Array;

  constructor(key: Buffer, private readonly nonce: () => Buffer = () => randomBytes(NONCE)) {
    if (key.length !== nacl().secretbox.keyLength) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
    this.key = new Uint8Array(key);
  }

  toStorage(plain: Buffer): Buffer {
    const nonce = this.nonce();
    if (nonce.length !== NONCE) throw new TransformError('unable to read sufficient random bytes');
    const boxed = nacl().secretbox(plain, nonce, this.key);
    return Buffer.concat([nonce, boxed]);
  }

  fromStorage(stored: Buffer): FromStorage {
    if (stored.length < OVERHEAD + NONCE) throw new TransformError('the stored data was shorter than the required size');
    const opened = nacl().secretbox.open(stored.subarray(NONCE), stored.subarray(0, NONCE), this.key);
    // kube's text for a failed Open (it reuses the message of its size check).
    if (!opened) throw new TransformError('output array was not large enough for encryption');
    return { value: Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength), stale: false };
  }
}
