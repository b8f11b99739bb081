/**
 * The APIService availability controller (kube-aggregator's AvailableConditionController).
 * Placeholder until the availability part lands.
 */
import type { AggregationContext } from './context';

export class AvailabilityController {
  constructor(readonly agg: AggregationContext) {}
  async start(): Promise<void> { /* the availability part */ }
  async stop(): Promise<void> { /* the availability part */ }
}
