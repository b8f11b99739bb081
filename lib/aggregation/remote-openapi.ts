/**
 * The OpenAPI documents of extension API servers, merged into this server's own.
 * Placeholder until the discovery part lands.
 */
import type { AggregationContext } from './context';

export class RemoteOpenApi {
  constructor(readonly agg: AggregationContext) {}
  async start(): Promise<void> { /* the discovery part */ }
  async stop(): Promise<void> { /* the discovery part */ }
}
