/**
 * The opaque continue token of a chunked list: the etcd revision of the first chunk, the key
 * (relative to the list prefix) to resume from, and when the list began, so that a token past
 * its lifetime is refused (410) even before etcd compacts its revision away.
 */
import { errors } from '../meta/api-errors';

export interface ContinueToken {
  /** The revision every chunk is read at. */
  rv: number;
  /** Key to resume from, relative to the collection prefix (inclusive). */
  start: string;
  /** When the first chunk was served (ms since the epoch). */
  issuedAt: number;
}

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start, t: t.issuedAt })).toString('base64url');
}

/** Decodes a token; a malformed one is 400 BadRequest. */
export function decodeContinue(token: string): ContinueToken {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    // A cross-namespace list resumes at `<namespace>/<name>`; a key must not leave the prefix.
    if (raw.v !== 'meta.k8s.io/v1' || !Number.isSafeInteger(raw.rv) || raw.rv <= 0 || typeof raw.start !== 'string'
      || raw.start.startsWith('/') || raw.start.split('/').some((seg: string) => seg === '..' || seg === '.')
      || (raw.t !== undefined && !Number.isSafeInteger(raw.t))) {
      throw new Error('bad');
    }
    return { rv: raw.rv, start: raw.start, issuedAt: raw.t ?? 0 };
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

/** Kubernetes' text for a continue token that can no longer give a consistent list. */
export const EXPIRED_CONTINUE_MESSAGE = 'The provided continue parameter is too old to display a consistent list result. '
  + 'You can start a new list without the continue parameter, or use the continue token in this response to retrieve '
  + 'the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that '
  + 'were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
