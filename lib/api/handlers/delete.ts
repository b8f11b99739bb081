/**
 * DELETE one object. ConfigMap-like kinds answer a Success Status, the others the object:
 * as it was removed, or as it stays (Terminating) while finalizers remain.
 */
import { ResourceScope, strategyContext, writeOptions } from './scope';
import { writeObject } from '../response-writer';
import { contentTypeOf, readRawBody } from '../negotiation';
import { decodeRequestBody } from '../protobuf-body';
import { parseDeleteOptions } from '../query';
import { deleteObject } from '../../registry/delete';
import { errors } from '../../meta/api-errors';

/** An optional DeleteOptions body (JSON or YAML, with or without kind). */
export async function readDeleteOptionsBody(s: ResourceScope): Promise<Record<string, unknown> | undefined> {
  const raw = await readRawBody(s.ctx);
  if (!raw.length || !raw.toString('utf8').trim()) return undefined;
  const body = decodeRequestBody(raw, contentTypeOf(s.ctx));
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('the body of a delete request must be a DeleteOptions object');
  return body as Record<string, unknown>;
}

export async function handleDelete(s: ResourceScope): Promise<void> {
  const wopts = writeOptions(s);
  const body = await readDeleteOptionsBody(s);
  const opts = parseDeleteOptions(body, new URLSearchParams(s.ctx.querystring));
  const dryRun = wopts.dryRun || (Array.isArray(body?.dryRun) && (body?.dryRun as unknown[]).includes('All'));
  const refusal = s.store.def.strategy.deleteRefusal?.(s.info.name as string);
  if (refusal) throw errors.forbidden({ group: s.store.def.group, resource: s.store.def.resource }, s.info.name as string, refusal);
  const result = await deleteObject(s.store, strategyContext(s), s.info.name as string, opts, { ...wopts, dryRun });
  const code = !result.removed && opts.orphanDependents === false ? 202 : 200;
  if (result.removed && s.store.def.deleteReturnsStatus) {
    const details: Record<string, unknown> = { name: s.info.name, kind: s.store.def.resource, uid: result.object.metadata?.uid };
    if (s.store.def.group) details.group = s.store.def.group;
    writeObject(s.ctx, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
    return;
  }
  writeObject(s.ctx, code, result.object);
}
