/**
 * The cap on Update entries (Kubernetes' capManagersManager): after an update, when more than
 * `max` (10) Update managers remain, the oldest are folded, per apiVersion, into one Update entry
 * named `ancient-changes` until at most `max` are left. Apply entries are never capped.
 *
 * Order is oldest first by entry time in whole seconds, then by manager identifier. Walking that
 * order, the first manager of an apiVersion is only remembered; from the second on, each one is
 * folded into the bucket (created from the remembered first one if it does not exist yet) and the
 * bucket takes the folded entry's time. One deliberate difference: when the bucket itself comes up
 * second in the order, Kubernetes would delete it; here the remembered manager is folded into it.
 */
import { ManagerRecord, ManagerTable, managerIdentifier, timeSeconds } from './manager-table';

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/** Caps the Update managers of `table` in place. */
export function capUpdateManagers(table: ManagerTable, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  if (table.size <= max) return;
  const updaters = [...table.entries()].filter(([, r]) => r.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const d = timeSeconds(table.get(a)?.time) - timeSeconds(table.get(b)?.time);
    if (d !== 0) return d;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  let count = updaters.length;
  const firstOfVersion = new Map<string, string>();
  for (const id of updaters) {
    if (count <= max) break;
    const rec = table.get(id) as ManagerRecord;
    const version = rec.apiVersion;
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, id);
      continue;
    }
    const bucketId = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version });
    let bucket = table.get(bucketId);
    if (!bucket) {
      const firstRec = table.get(first) as ManagerRecord;
      table.delete(first);
      bucket = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version, time: firstRec.time, fields: firstRec.fields };
      table.set(bucketId, bucket);
    }
    const folded = id === bucketId ? table.get(first) : rec;
    if (folded && folded !== bucket) {
      bucket.fields = bucket.fields.union(folded.fields);
      table.delete(id === bucketId ? first : id);
    }
    if (id !== bucketId) bucket.time = rec.time;
    count--;
  }
}
