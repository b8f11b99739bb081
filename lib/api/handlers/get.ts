/** GET one object (or one object through a subresource that reads the whole object). */
import { ResourceScope } from './scope';
import { writeObject } from '../response-writer';
import { negotiateResponse } from '../negotiation';
import { represent } from '../represent';

export async function handleGet(s: ResourceScope): Promise<void> {
  const rv = s.ctx.query.resourceVersion;
  const obj = await s.store.get(s.info.namespace, s.info.name as string, typeof rv === 'string' && rv ? rv : undefined);
  const n = negotiateResponse(s.ctx.get('accept'), 'object', obj);
  writeObject(s.ctx, 200, represent(s.store.def, obj, n, s.ctx.querystring), n);
}
