/** POST a new object into a collection: 201 with the stored object. */
import { ResourceScope, readObject, strategyContext, writeOptions } from './scope';
import { writeObject } from '../response-writer';

export async function handleCreate(s: ResourceScope): Promise<void> {
  const wopts = writeOptions(s);
  const obj = await readObject(s);
  const created = await s.store.create(strategyContext(s), obj, wopts);
  writeObject(s.ctx, 201, created);
}
