/**
 * Node-port allocation of one Service write, as Kubernetes 1.32's service REST does it
 * (initNodePorts, updateNodePorts, the health-check node port; portallocator/operation.go):
 * run on the node-port bitmap inside one compare-and-swap, so a refusal writes nothing. Ports a
 * write gives up are only listed here (released after the Service is written); a dry run reads
 * the bitmap, reports conflicts and takes nothing.
 */
import { errors } from '../../../meta/api-errors';
import type { ApiObject } from '../../../scheme/types';
import { AllocationBitmap } from './bitmap';
import { PortRangeShape } from './network';
import { ServiceSpec, needsHealthCheck, portsOf, shouldAllocateNodePorts, specOf } from './spec';

const ALREADY = 'provided port is already allocated';

/** PortAllocationOperation over a bitmap read for this write. */
export class PortOperation {
  readonly allocated: number[] = [];
  readonly releaseDeferred: number[] = [];

  constructor(private readonly bitmap: AllocationBitmap, private readonly shape: PortRangeShape, private readonly dryRun: boolean) {}

  /** The reason `port` cannot be taken, or undefined when it was taken. */
  allocate(port: number): string | undefined {
    const off = this.shape.offsetOf(port);
    if (this.dryRun) {
      if ((off !== undefined && this.bitmap.has(off)) || this.allocated.includes(port)) return ALREADY;
      this.allocated.push(port);
      return undefined;
    }
    if (off === undefined) return this.shape.notInRange();
    if (!this.bitmap.allocate(off)) return ALREADY;
    this.allocated.push(port);
    return undefined;
  }

  /** A free port, or undefined when the range is full (a dry run names a placeholder above 32768). */
  allocateNext(): number | undefined {
    if (this.dryRun) {
      const port = (this.allocated.length ? Math.max(...this.allocated) : 32768) + 1;
      this.allocated.push(port);
      return port;
    }
    const off = this.bitmap.allocateNext();
    if (off === undefined) return undefined;
    const port = this.shape.portAt(off);
    this.allocated.push(port);
    return port;
  }
}

const invalidNodePort = (obj: ApiObject, i: number, port: number, why: string) =>
  errors.invalid('Service', '', String(obj.metadata?.name ?? ''), [{ type: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${port}: ${why}` }]);
const full = () => errors.internal('failed to allocate a nodePort: range is full');

/** initNodePorts: one node port per service port number, the user's where given. */
export function initNodePorts(obj: ApiObject, op: PortOperation): void {
  const spec = specOf(obj);
  const ports = portsOf(spec);
  const byPort = new Map<number, number>();
  ports.forEach((sp, i) => {
    if (!sp.nodePort && !shouldAllocateNodePorts(spec)) return;
    const taken = byPort.get(sp.port ?? 0) ?? 0;
    if (taken === 0) {
      const requested = ports.slice(i).find((p) => p.port === sp.port && p.nodePort)?.nodePort ?? 0;
      if (requested) {
        const why = op.allocate(requested);
        if (why) throw invalidNodePort(obj, i, requested, why);
        sp.nodePort = requested;
      } else {
        const port = op.allocateNext();
        if (port === undefined) throw full();
        sp.nodePort = port;
      }
      byPort.set(sp.port ?? 0, sp.nodePort);
    } else if (sp.nodePort !== taken) {
      if (!sp.nodePort) sp.nodePort = taken;
      else {
        const why = op.allocate(sp.nodePort);
        if (why) throw invalidNodePort(obj, i, sp.nodePort, why);
      }
    }
  });
}

/** updateNodePorts: new ports allocated, old ones no longer used released after the write. */
export function updateNodePorts(obj: ApiObject, old: ServiceSpec, op: PortOperation): void {
  const spec = specOf(obj);
  const oldNumbers = portsOf(old).map((p) => p.nodePort ?? 0).filter((n) => n !== 0);
  const taken = new Set<number>();
  const seen = new Set<string>();
  portsOf(spec).forEach((sp, i) => {
    if (!sp.nodePort && !shouldAllocateNodePorts(spec)) return;
    if (sp.nodePort) {
      if (!oldNumbers.includes(sp.nodePort) && !taken.has(sp.nodePort)) {
        const why = op.allocate(sp.nodePort);
        if (why) throw invalidNodePort(obj, i, sp.nodePort, why);
        taken.add(sp.nodePort);
      }
    } else {
      const port = op.allocateNext();
      if (port === undefined) throw full();
      sp.nodePort = port;
    }
    const key = `${sp.protocol}/${sp.nodePort}`;
    if (seen.has(key)) throw errors.internal(`duplicate nodePort: {${sp.protocol} ${sp.nodePort}}`);
    seen.add(key);
  });
  const newNumbers = new Set(portsOf(spec).map((p) => p.nodePort ?? 0));
  for (const n of oldNumbers) if (!newNumbers.has(n)) op.releaseDeferred.push(n);
}

/** allocHealthCheckNodePort: the user's port when given, else a free one. */
export function allocHealthCheckNodePort(obj: ApiObject, op: PortOperation): void {
  const spec = specOf(obj);
  const hc = spec.healthCheckNodePort ?? 0;
  if (hc) {
    const why = op.allocate(hc);
    if (why) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${hc}: ${why}`);
    return;
  }
  const port = op.allocateNext();
  if (port === undefined) throw errors.internal('failed to allocate a HealthCheck NodePort 0: range is full');
  spec.healthCheckNodePort = port;
}

/** The node-port work of a create. */
export function nodePortsForCreate(obj: ApiObject, op: PortOperation): void {
  const spec = specOf(obj);
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') initNodePorts(obj, op);
  if (needsHealthCheck(spec)) allocHealthCheckNodePort(obj, op);
}

/** The node-port work of an update (txnUpdateNodePorts). */
export function nodePortsForUpdate(obj: ApiObject, old: ServiceSpec, op: PortOperation): void {
  const spec = specOf(obj);
  const oldNeeds = old.type === 'NodePort' || old.type === 'LoadBalancer';
  if (oldNeeds && (spec.type === 'ExternalName' || spec.type === 'ClusterIP')) {
    for (const p of portsOf(old)) if (p.nodePort) op.releaseDeferred.push(p.nodePort);
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') updateNodePorts(obj, old, op);
  const needed = needsHealthCheck(old);
  const needs = needsHealthCheck(spec);
  if (!needed && needs) allocHealthCheckNodePort(obj, op);
  else if (needed && !needs && old.healthCheckNodePort) op.releaseDeferred.push(old.healthCheckNodePort);
}
