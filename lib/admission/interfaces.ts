/**
 * The admission seam: the generic store calls mutating plugins after defaulting and before
 * validation, and validating plugins after validation, all before the one etcd write.
 * Plugins throw ApiError to reject. A dry run runs them too (with `dryRun` set).
 */
import { ApiObject, ResourceDef, StrategyContext } from '../scheme/types';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  resource: ResourceDef;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: ApiObject;
  oldObject?: ApiObject;
  dryRun: boolean;
  ctx: StrategyContext;
}

export interface AdmissionPlugin {
  name: string;
  /** May change attrs.object. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(attrs);
  }
}
