/**
 * A Pod's quality-of-service class (Kubernetes' ComputePodQOS), set once at creation from the
 * cpu and memory requests and limits of its regular and init containers.
 */
import { Quantity, compareQuantities, quantitySign, tryParseQuantity } from '../../../meta/quantity';
import { Json, record, records } from '../json-fields';

const QOS_RESOURCES = ['cpu', 'memory'];

function add(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const value = a.value * 10n ** BigInt(a.scale - scale) + b.value * 10n ** BigInt(b.scale - scale);
  return { value, scale, format: a.format };
}

/** Positive cpu/memory amounts of `list` summed into `into`; the names found. */
function accumulate(list: Json | undefined, into: Map<string, Quantity>): Set<string> {
  const found = new Set<string>();
  for (const [name, raw] of Object.entries(list ?? {})) {
    const q = QOS_RESOURCES.includes(name) ? tryParseQuantity(raw) : undefined;
    if (!q || quantitySign(q) <= 0) continue;
    found.add(name);
    const sum = into.get(name);
    into.set(name, sum ? add(sum, q) : q);
  }
  return found;
}

/** Guaranteed, Burstable or BestEffort for the (defaulted) pod spec. */
export function podQOSClass(spec: Json): string {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...records(spec, 'containers'), ...records(spec, 'initContainers')]) {
    const resources = record(c, 'resources') ?? {};
    accumulate(record(resources, 'requests'), requests);
    const limited = accumulate(record(resources, 'limits'), limits);
    if (!QOS_RESOURCES.every((r) => limited.has(r))) guaranteed = false;
  }
  if (!requests.size && !limits.size) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantities(lim, req) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
