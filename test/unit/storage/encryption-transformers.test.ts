/**
 * The value transformers of encryption at rest against known answers computed outside this code,
 * and kube's prefix semantics (order, staleness, identity's refusal, overlapping prefixes).
 *
 * AES vectors (plaintext PT below, etcd key ETCD_KEY as AES-GCM's additional data):
 *   aescbc: printf '%s' "$PT" | openssl enc -aes-<128|256>-cbc -K <key hex> -iv f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff | xxd -p
 *           (OpenSSL 3.0 CLI, PKCS#7 padding; kube stores iv || that)
 *   aesgcm: python3 cryptography 48 AESGCM(key).encrypt(bytes.fromhex('cafebabefacedbaddecaf888'), PT, ETCD_KEY)
 *           (ciphertext || 16-byte tag; kube stores nonce || that)
 * secretbox: NaCl's published crypto_box/secretbox test vector (tests/box.c, secretbox.c; also in
 *   tweetnacl's and libsodium's suites): key "firstkey", 24-byte nonce, a 131-byte message, whose
 *   secretbox is the 147 bytes after crypto_box's 16 leading zero bytes.
 */
import { expect } from 'chai';
import { AesCbcTransformer, AesGcmTransformer } from '../../../lib/storage/value/aes';
import { SecretboxTransformer } from '../../../lib/storage/value/secretbox';
import { IdentityTransformer, PrefixTransformers, TransformError, ValueTransformer } from '../../../lib/storage/value/transformer';

const hex = (s: string) => Buffer.from(s.replace(/[\s,]|0x/g, ''), 'hex');
const PT = Buffer.from('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1","namespace":"default"},"data":{"password":"aHVudGVyMg=="}}');
const ETCD_KEY = '/registry/secrets/default/s1';
const K128 = hex('000102030405060708090a0b0c0d0e0f');
const K256 = hex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4');
const IV = hex('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff');
const GCM_NONCE = hex('cafebabefacedbaddecaf888');

const CBC: Array<[string, Buffer, string]> = [
  ['AES-128', K128, '6e3993c9466399841b3ff8cfffda2551b35ad09e1eb6c6d7dfd916f3cba8d054acad7c1e6e65c9946ddafb3f1b3eb2dc3553660b9a1a42a8ebe59e86ed1dffeef3d7e46bf83ef407bad156e566b82a4f38b8b5f80b6048323314803782d059f780fa9eda7ffe4b8ea5000dddd8609ed24f6da628c6b8e7cd88189147859de578'],
  ['AES-256', K256, '70b50e9338948de3028de79d2cf3d2e9a7b9a49ed9e444b2fed6d5018b59d58187d153979b9574e708c323af89c87481ceb35a87fec24c0e37d1ddabfd06cad9df9caae5034465a2ad9e27fbf5b32348957f633773a4bf8756d94c4974a8d6b98b971ef7ddb2e0ff4fb05eeb4b68fc6afd1bee5fdfa2e4e95a7c27d9d94f3fb6'],
];
const GCM: Array<[string, Buffer, string]> = [
  ['AES-128', K128, 'f25bacdfeb93a33b8843aceb2f9fd4c5aa29595432bdd5d742807915541dcfa7ab0bb5229f71691da92ec45da19eb019a28f643a5306f610d18065b94e88ec80a2845416a5206ab9e976ca3f79a21c57332a5f5e94f06f76cb395c51818c4ce404ab7b69aafe7a31e7b8896667d700e2b94dacdf8a0b6d848028e34d1a4f3b9ad6ab216a40'],
  ['AES-256', K256, 'dc0583198122f341b4cd1f18a59dbbe22bc841be7c1a5f65435dca254f55e3ab044bbf2be3ef7167275a0d3012fe55be642eb88edffa1fcfdcd49adf5dc4496f994aabbd76cda9275c4858b842b310ce81b175aca7cc72bf9c71bebf24eed3d48bf7c06670f4ba45c7ccf3703fa5f55585b07dbdca2adab21283d0fb4460d1cfa67ba93d73'],
];

const NACL_KEY = hex(`0x1b,0x27,0x55,0x64,0x73,0xe9,0x85,0xd4,0x62,0xcd,0x51,0x19,0x7a,0x9a,0x46,0xc7,
  0x60,0x09,0x54,0x9e,0xac,0x64,0x74,0xf2,0x06,0xc4,0xee,0x08,0x44,0xf6,0x83,0x89`);
const NACL_NONCE = hex(`0x69,0x69,0x6e,0xe9,0x55,0xb6,0x2b,0x73,0xcd,0x62,0xbd,0xa8,0x75,0xfc,0x73,0xd6,
  0x82,0x19,0xe0,0x03,0x6b,0x7a,0x0b,0x37`);
const NACL_MESSAGE = hex(`0xbe,0x07,0x5f,0xc5,0x3c,0x81,0xf2,0xd5,0xcf,0x14,0x13,0x16,0xeb,0xeb,0x0c,0x7b
  ,0x52,0x28,0xc5,0x2a,0x4c,0x62,0xcb,0xd4,0x4b,0x66,0x84,0x9b,0x64,0x24,0x4f,0xfc
  ,0xe5,0xec,0xba,0xaf,0x33,0xbd,0x75,0x1a,0x1a,0xc7,0x28,0xd4,0x5e,0x6c,0x61,0x29
  ,0x6c,0xdc,0x3c,0x01,0x23,0x35,0x61,0xf4,0x1d,0xb6,0x6c,0xce,0x31,0x4a,0xdb,0x31
  ,0x0e,0x3b,0xe8,0x25,0x0c,0x46,0xf0,0x6d,0xce,0xea,0x3a,0x7f,0xa1,0x34,0x80,0x57
  ,0xe2,0xf6,0x55,0x6a,0xd6,0xb1,0x31,0x8a,0x02,0x4a,0x83,0x8f,0x21,0xaf,0x1f,0xde
  ,0x04,0x89,0x77,0xeb,0x48,0xf5,0x9f,0xfd,0x49,0x24,0xca,0x1c,0x60,0x90,0x2e,0x52
  ,0xf0,0xa0,0x89,0xbc,0x76,0x89,0x70,0x40,0xe0,0x82,0xf9,0x37,0x76,0x38,0x48,0x64
  ,0x5e,0x07,0x05`);
const NACL_BOX = hex(`0xf3,0xff,0xc7,0x70,0x3f,0x94,0x00,0xe5,0x2a,0x7d,0xfb,0x4b,0x3d,0x33,0x05,0xd9
  ,0x8e,0x99,0x3b,0x9f,0x48,0x68,0x12,0x73,0xc2,0x96,0x50,0xba,0x32,0xfc,0x76,0xce
  ,0x48,0x33,0x2e,0xa7,0x16,0x4d,0x96,0xa4,0x47,0x6f,0xb8,0xc5,0x31,0xa1,0x18,0x6a
  ,0xc0,0xdf,0xc1,0x7c,0x98,0xdc,0xe8,0x7b,0x4d,0xa7,0xf0,0x11,0xec,0x48,0xc9,0x72
  ,0x71,0xd2,0xc2,0x0f,0x9b,0x92,0x8f,0xe2,0x27,0x0d,0x6f,0xb8,0x63,0xd5,0x17,0x38
  ,0xb4,0x8e,0xee,0xe3,0x14,0xa7,0xcc,0x8a,0xb9,0x32,0x16,0x45,0x48,0xe5,0x26,0xae
  ,0x90,0x22,0x43,0x68,0x51,0x7a,0xcf,0xea,0xbd,0x6b,0xb3,0x73,0x2b,0xc0,0xe9,0xda
  ,0x99,0x83,0x2b,0x61,0xca,0x01,0xb6,0xde,0x56,0x24,0x4a,0x9e,0x88,0xd5,0xf9,0xb3
  ,0x79,0x73,0xf6,0x22,0xa4,0x3d,0x14,0xa6,0x59,0x9b,0x1f,0x65,0x4c,0xb4,0x5a,0x74
  ,0xe3,0x55,0xa5`);

function transformError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(TransformError);
    return (err as Error).message;
  }
  throw new Error('expected a TransformError');
}

describe('encryption at rest: value transformers', () => {
  describe('aescbc (iv || CBC of the PKCS#7-padded value)', () => {
    for (const [name, key, expected] of CBC) {
      it(`${name}: equals OpenSSL's output byte for byte with the iv fixed, and reads it back`, () => {
        const t = new AesCbcTransformer(key, () => IV);
        const stored = t.toStorage(PT);
        expect(stored.toString('hex')).to.equal(IV.toString('hex') + expected);
        expect(t.fromStorage(Buffer.concat([IV, hex(expected)])).value.equals(PT)).to.equal(true);
      });
    }
    it('an empty value is one block of padding (as OpenSSL pads it)', () => {
      expect(new AesCbcTransformer(K128, () => IV).toStorage(Buffer.alloc(0)).subarray(16).toString('hex')).to.equal('d02a48244eccdc2379224dbc54703612');
    });
    it('refuses short, ragged and badly padded data with kube\'s messages', () => {
      const t = new AesCbcTransformer(K128);
      expect(transformError(() => t.fromStorage(Buffer.alloc(15)))).to.equal('the stored data was shorter than the required size');
      expect(transformError(() => t.fromStorage(Buffer.alloc(40)))).to.equal('the stored data is not a multiple of the block size');
      // A different key decrypts to garbage: its last byte is almost never a valid padding.
      const stored = new AesCbcTransformer(K128, () => IV).toStorage(PT);
      const other = new AesCbcTransformer(hex('ffeeddccbbaa99887766554433221100'));
      expect(transformError(() => other.fromStorage(stored))).to.be.oneOf(['invalid PKCS7 data (empty or not padded)', 'invalid padding on input']);
    });
    it('uses a fresh random iv per write', () => {
      const t = new AesCbcTransformer(K256);
      expect(t.toStorage(PT).subarray(0, 16).equals(t.toStorage(PT).subarray(0, 16))).to.equal(false);
    });
  });

  describe('aesgcm (nonce(12) || ciphertext || tag, the etcd key as AAD)', () => {
    for (const [name, key, expected] of GCM) {
      it(`${name}: equals python cryptography's AESGCM byte for byte with the nonce fixed, and reads it back`, () => {
        const t = new AesGcmTransformer(key, () => GCM_NONCE);
        expect(t.toStorage(PT, ETCD_KEY).toString('hex')).to.equal(GCM_NONCE.toString('hex') + expected);
        expect(t.fromStorage(Buffer.concat([GCM_NONCE, hex(expected)]), ETCD_KEY).value.equals(PT)).to.equal(true);
      });
    }
    it('does not decrypt under another etcd key, a flipped bit or another key', () => {
      const t = new AesGcmTransformer(K256);
      const stored = t.toStorage(PT, ETCD_KEY);
      expect(transformError(() => t.fromStorage(stored, '/registry/secrets/default/s2'))).to.equal('cipher: message authentication failed');
      const flipped = Buffer.from(stored);
      flipped[20] ^= 1;
      expect(transformError(() => t.fromStorage(flipped, ETCD_KEY))).to.equal('cipher: message authentication failed');
      expect(transformError(() => new AesGcmTransformer(K128).fromStorage(stored, ETCD_KEY))).to.equal('cipher: message authentication failed');
      expect(transformError(() => t.fromStorage(Buffer.alloc(11), ETCD_KEY))).to.equal('the stored data was shorter than the required size');
    });
    it('uses a fresh random nonce per write', () => {
      const t = new AesGcmTransformer(K128);
      expect(t.toStorage(PT, ETCD_KEY).subarray(0, 12).equals(t.toStorage(PT, ETCD_KEY).subarray(0, 12))).to.equal(false);
    });
  });

  describe('secretbox (nonce(24) || tag || XSalsa20 ciphertext)', () => {
    it('equals NaCl\'s published vector with the nonce fixed, and reads it back', () => {
      const t = new SecretboxTransformer(NACL_KEY, () => NACL_NONCE);
      expect(t.toStorage(NACL_MESSAGE).toString('hex')).to.equal(NACL_NONCE.toString('hex') + NACL_BOX.toString('hex'));
      expect(t.fromStorage(Buffer.concat([NACL_NONCE, NACL_BOX])).value.equals(NACL_MESSAGE)).to.equal(true);
    });
    it('refuses tampered and short data', () => {
      const t = new SecretboxTransformer(NACL_KEY);
      const stored = t.toStorage(PT);
      stored[stored.length - 1] ^= 0x80;
      expect(transformError(() => t.fromStorage(stored))).to.equal('output array was not large enough for encryption');
      expect(transformError(() => t.fromStorage(Buffer.alloc(39)))).to.equal('the stored data was shorter than the required size');
    });
  });

  describe('prefix transformers (kube\'s order and staleness)', () => {
    const keyed = (prefix: string, keys: Array<[string, ValueTransformer]>) => ({
      prefix: Buffer.from(prefix),
      transformer: new PrefixTransformers(keys.map(([n, t]) => ({ prefix: Buffer.from(`${n}:`), transformer: t })), 'no matching key was found for the provided AES transformer'),
    });
    const k1 = new AesGcmTransformer(K128);
    const k2 = new AesGcmTransformer(K256);
    const identity = { prefix: Buffer.alloc(0), transformer: new IdentityTransformer() };

    it('writes with the first provider and key, prefixed k8s:enc:<provider>:v1:<key>:', () => {
      const t = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['k2', k2], ['k1', k1]]), identity], 'no matching prefix found');
      const stored = t.toStorage(PT, ETCD_KEY);
      expect(stored.subarray(0, 21).toString()).to.equal('k8s:enc:aesgcm:v1:k2:');
      expect(stored.includes(PT)).to.equal(false);
      expect(t.fromStorage(stored, ETCD_KEY)).to.deep.equal({ value: PT, stale: false });
    });
    it('reads with a later key or provider as stale; identity reads plaintext and refuses encrypted data', () => {
      const old = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['k1', k1]])], 'no matching prefix found').toStorage(PT, ETCD_KEY);
      const rotated = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['k2', k2], ['k1', k1]])], 'no matching prefix found');
      expect(rotated.fromStorage(old, ETCD_KEY).stale).to.equal(true);
      const identityFirst = new PrefixTransformers([identity, keyed('k8s:enc:aesgcm:v1:', [['k1', k1]])], 'no matching prefix found');
      expect(identityFirst.fromStorage(old, ETCD_KEY)).to.deep.equal({ value: PT, stale: true });
      expect(identityFirst.fromStorage(PT, ETCD_KEY)).to.deep.equal({ value: PT, stale: false });
      expect(identityFirst.toStorage(PT, ETCD_KEY).equals(PT)).to.equal(true);
      expect(transformError(() => new IdentityTransformer().fromStorage(old))).to.equal('identity transformer tried to read encrypted data');
    });
    it('tries every entry with a matching prefix (two aesgcm entries), and names the failure when none reads it', () => {
      const old = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['a', k1]])], 'x').toStorage(PT, ETCD_KEY);
      const two = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['a', k2]]), keyed('k8s:enc:aesgcm:v1:', [['a', k1]])], 'no matching prefix found');
      expect(two.fromStorage(old, ETCD_KEY)).to.deep.equal({ value: PT, stale: true });
      const wrong = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['a', k2]])], 'no matching prefix found');
      expect(transformError(() => wrong.fromStorage(old, ETCD_KEY))).to.equal('cipher: message authentication failed');
      const otherKeyName = new PrefixTransformers([keyed('k8s:enc:aesgcm:v1:', [['b', k1]])], 'no matching prefix found');
      expect(transformError(() => otherKeyName.fromStorage(old, ETCD_KEY))).to.equal('no matching key was found for the provided AES transformer');
      const cbcOnly = new PrefixTransformers([keyed('k8s:enc:aescbc:v1:', [['a', new AesCbcTransformer(K128)]])], 'no matching prefix found');
      expect(transformError(() => cbcOnly.fromStorage(old, ETCD_KEY))).to.equal('no matching prefix found');
      expect(transformError(() => cbcOnly.fromStorage(PT, ETCD_KEY))).to.equal('no matching prefix found');
    });
  });
});
