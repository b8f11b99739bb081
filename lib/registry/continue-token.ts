/**
 * The opaque continue token of a chunked list: the etcd revision of the first chunk and the
 * key (relative to the list prefix) to resume from, in Kubernetes' token layout.
 */
import { errors } from '../meta/api-errors';

export interface ContinueToken {
  /** The revision every chunk is read at. */
  rv: number;
  /** Key to resume from, relative to the collection prefix (inclusive). */
  start: string;
}

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

/** Decodes a token; a malformed one is 400 BadRequest. */
export function decodeContinue(token: string): ContinueToken {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (raw.v !== 'meta.k8s.io/v1' || typeof raw.rv !== 'number' || raw.rv <= 0 || typeof raw.start !== 'string'
      || raw.start.includes('..') || raw.start.startsWith('/')) {
      throw new Error('bad');
    }
    return { rv: raw.rv, start: raw.start };
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}
