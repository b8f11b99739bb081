/**
 * Encryption at rest: how a stored value is turned into the bytes etcd keeps and back, with
 * kube-apiserver's semantics and byte layout (k8s.io/apiserver pkg/storage/value):
 *
 * - a value written is `<prefix><provider bytes>`; the prefix is `k8s:enc:<provider>:v1:<key name>:`
 *   (identity: no prefix at all);
 * - on read, the transformers are tried in order, each whose prefix the data starts with; the
 *   first that succeeds wins, and a read by any but the first (of a list, or of a provider's keys)
 *   is *stale*: the value should be rewritten with the first;
 * - a failure on a matched prefix does not stop the search (two aescbc entries share a prefix),
 *   and identity's refusal of encrypted data is not an error of its own.
 *
 * Everything here is synchronous: Node's crypto and tweetnacl are.
 */

/** What a read returns: the plaintext, and whether it should be written again with the first transformer. */
export interface FromStorage {
  value: Buffer;
  stale: boolean;
}

export interface ValueTransformer {
  /** `key`: the etcd key, the additional authenticated data of aesgcm. */
  toStorage(plain: Buffer, key: string): Buffer;
  /** Throws TransformError when the data cannot be read. */
  fromStorage(stored: Buffer, key: string): FromStorage;
}

/** A value that cannot be transformed; the message is kube's (it reaches clients in a 500). */
export class TransformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransformError';
  }
}

/** A transformer behind a prefix: its input is the data after the prefix. */
export interface PrefixedTransformer {
  prefix: Buffer;
  transformer: ValueTransformer;
}

/** Records one transformation: `prefix` is the provider's prefix ('identity' for identity, 'unknown' for no match). */
export type TransformObserver = (type: 'from_storage' | 'to_storage', prefix: string, ok: boolean) => void;

/** Go's errors.Reduce(NewAggregate(errs)) text: one error as is, several as `[a, b]` (duplicates once). */
export function aggregateMessage(messages: string[]): string {
  const seen = [...new Set(messages)];
  return seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
}

/** kube's prefixTransformers: the first writes, the first matching that succeeds reads. */
export class PrefixTransformers implements ValueTransformer {
  constructor(
    readonly transformers: readonly PrefixedTransformer[],
    private readonly noMatch: string,
    private readonly observe?: TransformObserver,
  ) {
    if (!transformers.length) throw new Error('PrefixTransformers needs at least one transformer');
  }

  toStorage(plain: Buffer, key: string): Buffer {
    const first = this.transformers[0];
    let out: Buffer;
    try {
      out = first.transformer.toStorage(plain, key);
    } catch (err) {
      this.observe?.('to_storage', prefixLabel(first.prefix), false);
      throw err;
    }
    this.observe?.('to_storage', prefixLabel(first.prefix), true);
    return first.prefix.length ? Buffer.concat([first.prefix, out]) : out;
  }

  fromStorage(stored: Buffer, key: string): FromStorage {
    const errs: string[] = [];
    for (let i = 0; i < this.transformers.length; i++) {
      const { prefix, transformer } = this.transformers[i];
      if (!startsWith(stored, prefix)) continue;
      let result: FromStorage;
      try {
        result = transformer.fromStorage(prefix.length ? stored.subarray(prefix.length) : stored, key);
      } catch (err) {
        // Identity refusing encrypted data lets the next one try, without counting as an error.
        if (prefix.length === 0) continue;
        this.observe?.('from_storage', prefixLabel(prefix), false);
        errs.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      this.observe?.('from_storage', prefixLabel(prefix), true);
      return { value: result.value, stale: result.stale || i !== 0 };
    }
    if (errs.length) throw new TransformError(aggregateMessage(errs));
    this.observe?.('from_storage', 'unknown', false);
    throw new TransformError(this.noMatch);
  }
}

function prefixLabel(prefix: Buffer): string {
  return prefix.length ? prefix.toString('latin1') : 'identity';
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

const ENCRYPTED = Buffer.from('k8s:enc:');

/** Stores values as they are; refuses data that carries an encryption prefix (kube's identity transformer). */
export class IdentityTransformer implements ValueTransformer {
  toStorage(plain: Buffer): Buffer {
    return plain;
  }

  fromStorage(stored: Buffer): FromStorage {
    if (startsWith(stored, ENCRYPTED)) throw new TransformError('identity transformer tried to read encrypted data');
    return { value: stored, stale: false };
  }
}
