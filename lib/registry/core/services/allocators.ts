/**
 * The Service allocators of one server (Kubernetes' pkg/registry/core/service/storage/alloc.go
 * over ipallocator and portallocator): cluster IPs from each family's range and node ports from
 * the node-port range, each kept in etcd as a RangeAllocation bitmap (range-store.ts). A write
 * allocates first (each range one compare-and-swap), then the Service is written; the returned
 * transaction's commit releases what the write gave up, its revert releases what it took.
 * A dry run computes the same fields and takes nothing.
 */
import type { Storage } from '../../../storage/interfaces';
import type { ApiObject } from '../../../scheme/types';
import { errors } from '../../../meta/api-errors';
import { goStrings } from '../../../meta/go-print';
import { logger } from '../../../logger';
import { IPFamily, formatIp, parseIp } from './ip-range';
import { initIPFamilyFields } from './ip-families';
import { IpRangeShape, ServiceNetwork } from './network';
import { PortOperation, nodePortsForCreate, nodePortsForUpdate } from './node-ports';
import { RangeStore } from './range-store';
import { CLUSTER_IP_NONE, ServiceSpec, needsHealthCheck, portsOf, specOf } from './spec';

export interface AllocationTransaction {
  /** After the Service was written: release what the write gave up. */
  commit(): Promise<void>;
  /** After the write failed: release what was taken for it. */
  revert(): Promise<void>;
}

type FamilyIps = Map<IPFamily, string>;

export class ServiceAllocators {
  readonly ipStores: Map<IPFamily, RangeStore>;
  readonly portStore: RangeStore;

  constructor(readonly net: ServiceNetwork, storage: Storage, prefix: string) {
    this.ipStores = new Map(net.ipRanges.map((r) => [r.family, new RangeStore(storage, prefix, r)]));
    this.portStore = new RangeStore(storage, prefix, net.nodePorts);
  }

  private shapeOf(family: IPFamily): IpRangeShape {
    return this.ipStores.get(family)!.shape as IpRangeShape;
  }

  /** allocIPs: each family's address, the given one or a free one; undone in full on a refusal. */
  private async allocIps(obj: ApiObject, toAlloc: FamilyIps, dryRun: boolean): Promise<FamilyIps> {
    const spec = specOf(obj);
    const allocated: FamilyIps = new Map();
    try {
      for (const [family, ip] of toAlloc) {
        const shape = this.shapeOf(family);
        const store = this.ipStores.get(family)!;
        if (ip === '') {
          if (dryRun) { allocated.set(family, formatIp(shape.cidr.network, family)); continue; }
          const addr = await store.update((bm) => {
            const off = bm.allocateNext();
            if (off === undefined) throw errors.internal('failed to allocate a serviceIP: range is full');
            return { result: shape.addressAt(off), changed: true };
          });
          allocated.set(family, addr);
          continue;
        }
        const parsed = parseIp(ip);
        const refuse = (why: string) => errors.invalid('Service', '', String(obj.metadata?.name ?? ''),
          [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: ${goStrings(spec.clusterIPs)}: failed to allocate IP ${ip}: ${why}` }]);
        const off = parsed ? shape.offsetOf(parsed) : undefined;
        if (off === undefined) throw refuse(shape.notInRange(parsed ? formatIp(parsed.value, parsed.family) : ip));
        if (!dryRun) {
          await store.update((bm) => {
            if (!bm.allocate(off)) throw refuse('provided IP is already allocated');
            return { result: undefined, changed: true };
          });
        }
        allocated.set(family, ip);
      }
    } catch (err) {
      if (!dryRun) await this.releaseIps(allocated);
      throw err;
    }
    return allocated;
  }

  /** releaseIPs: addresses outside the ranges (or of a family no longer configured) are skipped. */
  async releaseIps(ips: FamilyIps): Promise<void> {
    for (const [family, ip] of ips) {
      const store = this.ipStores.get(family);
      const parsed = parseIp(ip);
      const off = store && parsed ? (store.shape as IpRangeShape).offsetOf(parsed) : undefined;
      if (!store || off === undefined) continue;
      await store.update((bm) => {
        const had = bm.has(off);
        bm.release(off);
        return { result: undefined, changed: had };
      });
    }
  }

  async releasePorts(ports: number[]): Promise<void> {
    const shape = this.net.nodePorts;
    const offsets = ports.map((p) => shape.offsetOf(p)).filter((o): o is number => o !== undefined);
    if (!offsets.length) return;
    await this.portStore.update((bm) => {
      let changed = false;
      for (const o of offsets) { if (bm.has(o)) { bm.release(o); changed = true; } }
      return { result: undefined, changed };
    });
  }

  /** allocClusterIPs: every family of ipFamilies gets its address (none for ExternalName or headless). */
  private async allocClusterIps(obj: ApiObject, dryRun: boolean): Promise<FamilyIps> {
    const spec = specOf(obj);
    if (spec.type === 'ExternalName' || spec.clusterIPs?.[0] === CLUSTER_IP_NONE) return new Map();
    const ips = [...(spec.clusterIPs ?? [])];
    const toAlloc: FamilyIps = new Map();
    (spec.ipFamilies ?? []).forEach((f, i) => {
      if (i >= ips.length) ips.push('');
      toAlloc.set(f as IPFamily, ips[i]);
    });
    const allocated = await this.allocIps(obj, toAlloc, dryRun);
    spec.clusterIPs = ips;
    for (const [family, ip] of allocated) {
      (spec.ipFamilies ?? []).forEach((f, i) => {
        if (f !== family) return;
        ips[i] = ip;
        if (i === 0) spec.clusterIP = ip;
      });
    }
    return allocated;
  }

  /**
   * Node-port work in one compare-and-swap of the node-port bitmap (a dry run only reads it). A
   * lost race runs the work again from the ports as they came in, on the bitmap read again.
   */
  private async nodePorts(obj: ApiObject, work: (op: PortOperation) => void, dryRun: boolean): Promise<PortOperation> {
    const spec = specOf(obj);
    const ports = JSON.stringify(spec.ports ?? null);
    const hc = spec.healthCheckNodePort;
    const restore = () => {
      if (ports === 'null') delete spec.ports; else spec.ports = JSON.parse(ports) as ServiceSpec['ports'];
      if (hc === undefined) delete spec.healthCheckNodePort; else spec.healthCheckNodePort = hc;
    };
    if (dryRun) {
      const { bitmap } = await this.portStore.read();
      const op = new PortOperation(bitmap, this.net.nodePorts, true);
      work(op);
      return op;
    }
    let result: PortOperation | undefined;
    await this.portStore.update((bm) => {
      restore();
      const op = new PortOperation(bm, this.net.nodePorts, false);
      work(op);
      result = op;
      return { result: undefined, changed: op.allocated.length > 0 };
    });
    return result!;
  }

  /** allocateCreate: family fields, cluster IPs, node ports. */
  async allocateCreate(obj: ApiObject, dryRun: boolean): Promise<AllocationTransaction> {
    initIPFamilyFields(this.net, obj);
    const ips = await this.allocClusterIps(obj, dryRun);
    let ports: PortOperation;
    try {
      ports = await this.nodePorts(obj, (op) => nodePortsForCreate(obj, op), dryRun);
    } catch (err) {
      if (!dryRun) await this.releaseIps(ips);
      throw err;
    }
    return this.transaction(dryRun, { ips, ports: ports.allocated }, { ips: new Map(), ports: [] });
  }

  /** allocateUpdate: type changes and dual-stack upgrades allocate, the reverse releases after the write. */
  async allocateUpdate(obj: ApiObject, oldObj: ApiObject, dryRun: boolean): Promise<AllocationTransaction> {
    initIPFamilyFields(this.net, obj, oldObj);
    const old = specOf(oldObj);
    const { allocated, toRelease } = await this.updateClusterIps(obj, old, dryRun);
    let ports: PortOperation;
    try {
      ports = await this.nodePorts(obj, (op) => nodePortsForUpdate(obj, old, op), dryRun);
    } catch (err) {
      if (!dryRun) await this.releaseIps(allocated);
      throw err;
    }
    return this.transaction(dryRun, { ips: allocated, ports: ports.allocated }, { ips: toRelease, ports: ports.releaseDeferred });
  }

  private async updateClusterIps(obj: ApiObject, old: ServiceSpec, dryRun: boolean): Promise<{ allocated: FamilyIps; toRelease: FamilyIps }> {
    const spec = specOf(obj);
    const none = { allocated: new Map() as FamilyIps, toRelease: new Map() as FamilyIps };
    if (old.ipFamilyPolicy === 'PreferDualStack' && spec.ipFamilyPolicy === 'PreferDualStack'
      && JSON.stringify(old.clusterIPs ?? []) === JSON.stringify(spec.clusterIPs ?? [])
      && JSON.stringify(old.ipFamilies ?? []) === JSON.stringify(spec.ipFamilies ?? [])) return none;
    if (old.type === 'ExternalName' && spec.type !== 'ExternalName') return { allocated: await this.allocClusterIps(obj, dryRun), toRelease: new Map() };
    if (old.clusterIPs?.[0] === CLUSTER_IP_NONE) return none;
    if (old.type !== 'ExternalName' && spec.type === 'ExternalName') return { allocated: new Map(), toRelease: familyIpsOf(old) };
    const oldFams = old.ipFamilies ?? [];
    const fams = spec.ipFamilies ?? [];
    if (oldFams.length === 1 && fams.length === 2) {
      const ips = [...(spec.clusterIPs ?? [])];
      if (ips.length < 2) ips.push('');
      const family = fams[1] as IPFamily;
      const allocated = await this.allocIps(obj, new Map([[family, ips[1]]]), dryRun);
      ips[1] = allocated.get(family) ?? ips[1];
      spec.clusterIPs = ips;
      return { allocated, toRelease: new Map() };
    }
    if (oldFams.length === 2 && fams.length === 1) {
      return { allocated: new Map(), toRelease: new Map([[oldFams[1] as IPFamily, (old.clusterIPs ?? [])[1]]]) };
    }
    return none;
  }

  private transaction(dryRun: boolean, taken: { ips: FamilyIps; ports: number[] }, given: { ips: FamilyIps; ports: number[] }): AllocationTransaction {
    const quietly = async (what: string, fn: () => Promise<void>) => {
      try { await fn(); } catch (err) { logger.warn(`service allocation: failed to release ${what} (the repair loop will)`, { error: String(err) }); }
    };
    return {
      commit: async () => {
        if (dryRun) return;
        await quietly('cluster IPs', () => this.releaseIps(given.ips));
        await quietly('node ports', () => this.releasePorts(given.ports));
      },
      revert: async () => {
        if (dryRun) return;
        await quietly('cluster IPs', () => this.releaseIps(taken.ips));
        await quietly('node ports', () => this.releasePorts(taken.ports));
      },
    };
  }

  /** releaseAllocatedResources: what a deleted Service held. */
  async releaseAll(obj: ApiObject): Promise<void> {
    const spec = specOf(obj);
    if (spec.type !== 'ExternalName') await this.releaseIps(familyIpsOf(spec));
    const ports = portsOf(spec).map((p) => p.nodePort ?? 0).filter((n) => n !== 0);
    if (needsHealthCheck(spec) && spec.healthCheckNodePort) ports.push(spec.healthCheckNodePort);
    await this.releasePorts(ports);
  }
}

/** A spec's cluster IPs by family (`None` has none). */
export function familyIpsOf(spec: ServiceSpec): FamilyIps {
  const out: FamilyIps = new Map();
  for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
    const p = parseIp(ip);
    if (p) out.set(p.family, ip);
  }
  return out;
}
