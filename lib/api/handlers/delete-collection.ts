/** DELETE a collection: every selected object, answered as the list of deleted objects. */
import { ResourceScope, listBody, strategyContext, writeOptions } from './scope';
import { writeObject } from '../response-writer';
import { parseDeleteOptions, parseListOptions } from '../query';
import { deleteCollection } from '../../registry/delete';
import { readDeleteOptionsBody } from './delete';
import { selectableFields } from './list';

export async function handleDeleteCollection(s: ResourceScope): Promise<void> {
  const wopts = writeOptions(s);
  const query = new URLSearchParams(s.ctx.querystring);
  const listOpts = parseListOptions(query, selectableFields(s));
  const opts = parseDeleteOptions(await readDeleteOptionsBody(s), query);
  const deleted = await deleteCollection(s.store, strategyContext(s), listOpts, opts, wopts);
  writeObject(s.ctx, 200, listBody(s, deleted, { resourceVersion: '' }));
}
