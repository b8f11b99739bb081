/**
 * The local APIServices (kube-apiserver's autoregister and CRD registration controllers).
 * Placeholder until the availability part lands.
 */
import type { AggregationContext } from './context';

export class LocalApiServiceKeeper {
  constructor(readonly agg: AggregationContext) {}
  async start(): Promise<void> { /* the availability part */ }
  async stop(): Promise<void> { /* the availability part */ }
}
