/**
 * Charges whose objects are not written yet, by namespace (one record per server, by its etcd
 * storage). A charge and its object are two etcd writes: in between, the quota holds a charge
 * for an object no list shows. A recalculation counting then would write the charge away, and
 * the next creates could go past hard (Kubernetes' quota controller has that window until its
 * next resync).
 *
 * So the plugin opens an entry for each request before its charge is written, and the store
 * closes it when the request's write has happened or failed (AdmissionAttributes.afterWrite). The
 * controller, having read a quota, waits for every entry of the namespace open by then, and only
 * then lists the objects, consistently: each charge of this server the quota holds is then for an
 * object the list shows, or for one whose write failed (which the recalculation rightly gives
 * back). A charge made after the read changes the quota, and the controller's compare-and-swap on
 * the quota's resourceVersion then fails.
 */
import type { Storage } from '../../storage/interfaces';

export interface InFlightCharge {
  /** Ends the entry: the request's write happened or failed, or it charged nothing. */
  close(): void;
}

interface Entry extends InFlightCharge { closed: Promise<void> }

export class InFlightCharges {
  private readonly byNamespace = new Map<string, Set<Entry>>();

  /** An entry for a request about to be charged in `namespace`. */
  open(namespace: string): InFlightCharge {
    let entries = this.byNamespace.get(namespace);
    if (!entries) this.byNamespace.set(namespace, entries = new Set());
    const set = entries;
    let close!: () => void;
    const entry: Entry = {
      closed: new Promise<void>((resolve) => { close = resolve; }),
      close: () => {
        set.delete(entry);
        if (!set.size && this.byNamespace.get(namespace) === set) this.byNamespace.delete(namespace);
        close();
      },
    };
    set.add(entry);
    return entry;
  }

  /** Resolves when every entry of `namespace` open now is closed. */
  async settled(namespace: string): Promise<void> {
    const entries = this.byNamespace.get(namespace);
    if (entries) await Promise.all([...entries].map((e) => e.closed));
  }
}

const records = new WeakMap<Storage, InFlightCharges>();

/** The record of the server whose etcd storage this is (shared by its plugin and its controller). */
export function inFlightCharges(storage: Storage): InFlightCharges {
  let r = records.get(storage);
  if (!r) records.set(storage, r = new InFlightCharges());
  return r;
}
