/**
 * kube-apiserver's AES providers, byte for byte (k8s.io/apiserver pkg/storage/value/encrypt/aes):
 *
 * - aesgcm: `nonce(12) || ciphertext || tag(16)`, the nonce random, the etcd key as additional
 *   authenticated data (a value copied under another key does not decrypt);
 * - aescbc: `iv(16) || AES-CBC(PKCS#7-padded plaintext)`, no AAD and no MAC; the padding is
 *   checked here with kube's error texts.
 *
 * Keys of 16, 24 or 32 bytes (AES-128/192/256).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { FromStorage, TransformError, ValueTransformer } from './transformer';

const GCM_NONCE = 12;
const GCM_TAG = 16;
const BLOCK = 16;

function algorithm(key: Buffer, mode: 'gcm' | 'cbc'): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

/** `nonce`: how a nonce is made (tests fix it for known-answer vectors); random by default. */
export class AesGcmTransformer implements ValueTransformer {
  private readonly algorithm: string;

  constructor(private readonly key: Buffer, private readonly nonce: () => Buffer = () => randomBytes(GCM_NONCE)) {
    this.algorithm = algorithm(key, 'gcm');
  }

  toStorage(plain: Buffer, etcdKey: string): Buffer {
    const nonce = this.nonce();
    if (nonce.length !== GCM_NONCE) throw new TransformError(`failed to write nonce for AES-GCM: nonce of ${nonce.length} bytes`);
    const cipher = createCipheriv(this.algorithm as 'aes-256-gcm', this.key, nonce, { authTagLength: GCM_TAG });
    cipher.setAAD(Buffer.from(etcdKey, 'utf8'));
    const head = cipher.update(plain);
    const tail = cipher.final();
    return Buffer.concat([nonce, head, tail, cipher.getAuthTag()]);
  }

  fromStorage(stored: Buffer, etcdKey: string): FromStorage {
    if (stored.length < GCM_NONCE) throw new TransformError('the stored data was shorter than the required size');
    // Go's AEAD.Open refuses data shorter than the tag with the same message as a bad tag.
    if (stored.length < GCM_NONCE + GCM_TAG) throw new TransformError('cipher: message authentication failed');
    const decipher = createDecipheriv(this.algorithm as 'aes-256-gcm', this.key, stored.subarray(0, GCM_NONCE), { authTagLength: GCM_TAG });
    decipher.setAAD(Buffer.from(etcdKey, 'utf8'));
    decipher.setAuthTag(stored.subarray(stored.length - GCM_TAG));
    try {
      const head = decipher.update(stored.subarray(GCM_NONCE, stored.length - GCM_TAG));
      return { value: Buffer.concat([head, decipher.final()]), stale: false };
    } catch {
      throw new TransformError('cipher: message authentication failed');
    }
  }
}

export class AesCbcTransformer implements ValueTransformer {
  private readonly algorithm: string;

  constructor(private readonly key: Buffer, private readonly iv: () => Buffer = () => randomBytes(BLOCK)) {
    this.algorithm = algorithm(key, 'cbc');
  }

  toStorage(plain: Buffer): Buffer {
    const iv = this.iv();
    if (iv.length !== BLOCK) throw new TransformError('unable to read sufficient random bytes');
    const pad = BLOCK - (plain.length % BLOCK);
    const padded = Buffer.alloc(plain.length + pad, pad);
    plain.copy(padded);
    const cipher = createCipheriv(this.algorithm as 'aes-256-cbc', this.key, iv).setAutoPadding(false);
    return Buffer.concat([iv, cipher.update(padded), cipher.final()]);
  }

  fromStorage(stored: Buffer): FromStorage {
    if (stored.length < BLOCK) throw new TransformError('the stored data was shorter than the required size');
    const data = stored.subarray(BLOCK);
    if (data.length % BLOCK !== 0) throw new TransformError('the stored data is not a multiple of the block size');
    // kube decrypts an empty body too and then finds no padding.
    if (data.length === 0) throw new TransformError('invalid PKCS7 data (empty or not padded)');
    const decipher = createDecipheriv(this.algorithm as 'aes-256-cbc', this.key, stored.subarray(0, BLOCK)).setAutoPadding(false);
    const out = Buffer.concat([decipher.update(data), decipher.final()]);
    const pad = out[out.length - 1];
    if (pad === 0 || pad > out.length) throw new TransformError('invalid PKCS7 data (empty or not padded)');
    for (let i = out.length - pad; i < out.length; i++) {
      if (out[i] !== pad) throw new TransformError('invalid padding on input');
    }
    return { value: out.subarray(0, out.length - pad), stale: false };
  }
}
