/**
 * The allocation repair loop of kube-apiserver 1.32 (ipallocator/controller/repair.go and
 * portallocator/controller/repair.go), run by every server replica: at start and then every
 * `intervalMs` (kube: 3 minutes) each bitmap is rebuilt from the Services in etcd. Addresses
 * and ports a Service uses but the bitmap lacks are marked again (logged); marked ones no
 * Service uses are kept for three runs (a write may be between its allocation and its Service)
 * and then released; a Service's address outside the range, or taken twice, is logged. The
 * rebuilt bitmap is written by compare-and-swap against the one read first, so an allocation
 * made meanwhile fails the run (tried again next time) instead of being lost.
 */
import type { ApiObject } from '../../../scheme/types';
import type { KeyValue, Storage } from '../../../storage/interfaces';
import { logger } from '../../../logger';
import { AllocationBitmap } from './bitmap';
import { IPFamily, parseIp } from './ip-range';
import { IpRangeShape, PortRangeShape, ServiceNetwork } from './network';
import { RangeShape, RangeStore, StoredRange, rangeAllocationJson } from './range-store';
import { CLUSTER_IP_NONE, ServiceSpec, portsOf, specOf } from './spec';

/** numRepairsBeforeLeakCleanup. */
export const REPAIRS_BEFORE_LEAK_CLEANUP = 3;
/** kube-apiserver's repair interval. */
export const DEFAULT_REPAIR_INTERVAL_MS = 3 * 60_000;

export interface RepairOptions {
  storage: Storage;
  /** --etcd-prefix (no trailing slash). */
  prefix: string;
  network: ServiceNetwork;
  /** The Services as stored (every namespace), decoded. */
  listServices(): Promise<ApiObject[]>;
  intervalMs?: number;
  log?: (message: string, meta?: Record<string, unknown>) => void;
}

type Usage = { service: string; item: number }[];

export class ServiceAllocationRepair {
  /** Per range key: item offset -> runs left before release. */
  private readonly leaks = new Map<string, Map<number, number>>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly log: (message: string, meta?: Record<string, unknown>) => void;

  constructor(private readonly opts: RepairOptions) {
    this.log = opts.log ?? ((m, meta) => logger.warn(m, meta));
  }

  /** One repair of every bitmap; rejects when a range could not be written (tried again next run). */
  async runOnce(): Promise<void> {
    const { network } = this.opts;
    const stores = [...network.ipRanges.map((r) => this.store(r)), this.store(network.nodePorts)];
    // The bitmaps are read before the Services: an allocation made after the read fails the write below.
    const snapshots = await Promise.all(stores.map((s) => s.read()));
    const services = await this.opts.listServices();
    const failures: unknown[] = [];
    for (let i = 0; i < stores.length; i++) {
      const shape = stores[i].shape;
      const usage = shape instanceof PortRangeShape ? portUsage(services, shape, this.log) : ipUsage(services, shape as IpRangeShape, this.log);
      try {
        await this.repairRange(stores[i], snapshots[i], usage);
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length) throw failures[0];
  }

  private store(shape: RangeShape): RangeStore {
    return new RangeStore(this.opts.storage, this.opts.prefix, shape);
  }

  private async repairRange(store: RangeStore, snapshot: StoredRange, usage: Usage): Promise<void> {
    const shape = store.shape;
    const { bitmap: stored, modRevision } = snapshot;
    const what = shape instanceof PortRangeShape ? 'node port' : 'cluster IP';
    const name = (off: number) => (shape instanceof PortRangeShape ? String(shape.portAt(off)) : (shape as IpRangeShape).addressAt(off));
    const rebuilt = new AllocationBitmap(shape.max, shape.offset);
    const leaks = this.leaks.get(shape.key) ?? new Map<number, number>();
    this.leaks.set(shape.key, leaks);
    const left = new AllocationBitmap(shape.max, shape.offset, stored.bits);
    for (const { service, item } of usage) {
      if (!rebuilt.allocate(item)) {
        this.log(`the ${what} ${name(item)} for service ${service} was assigned to multiple services; please recreate`);
        continue;
      }
      if (left.has(item)) left.release(item);
      else this.log(`the ${what} ${name(item)} for service ${service} is not allocated; repairing`);
      leaks.delete(item);
    }
    // Marked but used by no Service: kept until seen so REPAIRS_BEFORE_LEAK_CLEANUP times, then freed.
    for (const item of left.taken()) {
      const count = leaks.get(item) ?? REPAIRS_BEFORE_LEAK_CLEANUP - 1;
      if (!leaks.has(item)) this.log(`the ${what} ${name(item)} may have leaked: flagging for later clean up`);
      if (count > 0) {
        leaks.set(item, count - 1);
        rebuilt.allocate(item);
      } else {
        leaks.delete(item);
        this.log(`the ${what} ${name(item)} appears to have leaked: cleaning up`);
      }
    }
    const value = rangeAllocationJson(shape.rangeText, rebuilt.toBytes());
    const res = modRevision === undefined
      ? await this.opts.storage.create(store.etcdKey, value)
      : rebuilt.bits === stored.bits && !snapshot.mismatched ? { ok: true } : await this.opts.storage.update(store.etcdKey, value, modRevision);
    if (!res.ok) throw new Error(`the ${what} allocations changed during the repair; will retry`);
  }

  /** Runs at once (retrying each second until a run succeeds, at most 10 s), then every interval. */
  async start(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await this.runOnce();
        break;
      } catch (err) {
        if (Date.now() > deadline) { this.log('service allocation repair failed at start', { error: String(err) }); break; }
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const tick = () => {
      this.running = this.runOnce().catch((err) => this.log('service allocation repair failed', { error: String(err) }))
        .finally(() => { this.running = undefined; if (this.timer) this.timer = setTimeout(tick, this.intervalMs); });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  get intervalMs(): number {
    return this.opts.intervalMs ?? DEFAULT_REPAIR_INTERVAL_MS;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

const nameOf = (svc: ApiObject) => `${svc.metadata?.namespace}/${svc.metadata?.name}`;

/** The offsets of a range the Services' cluster IPs use. */
function ipUsage(services: ApiObject[], shape: IpRangeShape, log: (m: string) => void): Usage {
  const out: Usage = [];
  for (const svc of services) {
    const spec: ServiceSpec = specOf({ ...svc });
    if (spec.type === 'ExternalName' || !spec.clusterIP || spec.clusterIP === CLUSTER_IP_NONE) continue;
    for (const ip of spec.clusterIPs ?? [spec.clusterIP]) {
      const parsed = parseIp(ip);
      if (!parsed) { log(`the cluster IP ${ip} for service ${nameOf(svc)} is not a valid IP; please recreate`); continue; }
      if (parsed.family !== shape.family) continue;
      const off = shape.offsetOf(parsed);
      if (off === undefined) {
        log(`the cluster IP [${shape.family as IPFamily}]:${ip} for service ${nameOf(svc)} is not within the service CIDR ${shape.rangeText}; please recreate`);
        continue;
      }
      out.push({ service: nameOf(svc), item: off });
    }
  }
  return out;
}

/** The offsets the Services' node ports (and health-check node ports) use, each once per Service. */
function portUsage(services: ApiObject[], shape: PortRangeShape, log: (m: string) => void): Usage {
  const out: Usage = [];
  for (const svc of services) {
    const spec: ServiceSpec = specOf({ ...svc });
    const ports = new Set(portsOf(spec).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
    if (spec.healthCheckNodePort) ports.add(spec.healthCheckNodePort);
    for (const port of ports) {
      const off = shape.offsetOf(port);
      if (off === undefined) log(`the node port ${port} for service ${nameOf(svc)} is not within the port range ${shape.rangeText}; please recreate`);
      else out.push({ service: nameOf(svc), item: off });
    }
  }
  return out;
}

/** The Services stored under `collectionPrefix`, decoded by `decode`. */
export async function storedServices(storage: Storage, collectionPrefix: string, decode: (kv: KeyValue) => ApiObject): Promise<ApiObject[]> {
  return (await storage.range(collectionPrefix)).kvs.map(decode);
}
