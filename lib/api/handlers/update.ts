/** PUT: replace an object (or what a subresource owns); 201 when it created the object. */
import { ResourceScope, readObject, strategyContext, writeOptions } from './scope';
import { writeObject } from '../response-writer';
import { errors } from '../../meta/api-errors';

export async function handleUpdate(s: ResourceScope): Promise<void> {
  const wopts = writeOptions(s);
  const obj = await readObject(s);
  const name = s.info.name as string;
  const bodyName = obj.metadata?.name;
  if (!bodyName) throw errors.badRequest('name is required in the body of an update (metadata.name)');
  if (bodyName !== name) {
    throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  }
  const { object, created } = await s.store.update(strategyContext(s), name, obj, { ...wopts, subresource: s.info.subresource });
  writeObject(s.ctx, created ? 201 : 200, object);
}
