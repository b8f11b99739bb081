/** GET one object (or one object through a subresource that reads the whole object). */
import { ResourceScope } from './scope';
import { wantsCompactJson, writeObject } from '../response-writer';
import { negotiateResponse } from '../negotiation';
import { setContentType } from '../response-head';
import { represent } from '../represent';
import { decodeKv, joinJson, servedJsonOf } from '../../storage/storage-codec';

export async function handleGet(s: ResourceScope): Promise<void> {
  const qs = s.ctx.querystring;
  const rv = qs.includes('resourceVersion') ? new URLSearchParams(qs).get('resourceVersion') : null;
  const store = s.store;
  const kv = await store.getStored(s.info.namespace, s.info.name as string, rv || undefined);
  const n = negotiateResponse(s.ctx.get('accept'), 'object', { apiVersion: store.apiVersion, kind: store.def.kind });
  // Plain compact JSON of an undecorated kind is the stored bytes with the resourceVersion spliced
  // in; so is a converted kind's object stored at the version asked for, with nothing to default.
  const versioning = store.def.versioning;
  const asStored = versioning ? versioning.servesStored(kv.value) : !store.def.strategy.decorate;
  const served = asStored && wantsCompactJson(s.ctx, n) ? servedJsonOf(kv) : undefined;
  if (served) {
    s.ctx.status = 200;
    setContentType(s.ctx, n.mediaType);
    s.ctx.body = joinJson('', [served], '\n');
    return;
  }
  const obj = versioning ? (await store.outputKvs([kv]))[0] : store.output(decodeKv(kv));
  writeObject(s.ctx, 200, represent(store.def, obj, n, s.ctx.querystring), n);
}
