/**
 * What the mutating and the validating webhook plugins share: the configurations (source and
 * index), the clients with the plugin configuration's credentials, the served versions for
 * matchPolicy Equivalent, the first cut of a request (exempt kinds, index lookup), and what
 * matchConditions need (the server's authorization for the `authorizer` variable).
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { PluginDeps } from '../plugin-factory';
import { CompiledWebhook } from './compiled-webhook';
import { CallDeps } from './call-hook';
import { ServiceResolver, WebhookClients } from './webhook-client';
import { credentialsFromPluginConfig } from './webhook-credentials';
import { EquivalentResources, MatchConditionDeps, followEquivalents } from './webhook-matcher';
import { authorizeVia } from '../cel-authorizer';
import { WebhookSource } from './webhook-source';
import { isExemptConfigurationKind } from './rules';

export class WebhookCore {
  readonly source: WebhookSource;
  readonly clients: WebhookClients;
  readonly call: CallDeps;
  equivalents: EquivalentResources = { equivalents: () => [] };
  private readonly configGroup: string;
  private unsubscribe?: () => void;

  constructor(readonly deps: PluginDeps, resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations') {
    this.source = new WebhookSource(deps, resource);
    this.clients = new WebhookClients(credentialsFromPluginConfig(deps.pluginConfig));
    this.call = { naming: deps.naming, clients: this.clients, metrics: deps.metrics };
    this.configGroup = deps.naming.group('admissionregistration');
  }

  async start(): Promise<void> {
    this.unsubscribe = followEquivalents(this.deps, (e) => { this.equivalents = e; });
    await this.source.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.source.stop();
    this.clients.close();
  }

  /** For matchConditions: checks go to the server's authorization (built before any request is served). */
  matchConditionDeps(type: 'admit' | 'validating'): MatchConditionDeps {
    return { authorize: authorizeVia(this.deps.authorization), metrics: this.deps.metrics, type };
  }

  setServiceResolver(resolver: ServiceResolver): void {
    this.clients.setServiceResolver(resolver);
  }

  /** The webhooks that may apply (call order), or undefined: nothing to do for this request. */
  candidates(attrs: AdmissionAttributes): CompiledWebhook[] | undefined {
    const r = attrs.resource;
    const found = this.source.index.candidates(attrs.operation, r.group, r.resource);
    if (!found) return undefined;
    if (r.group === this.configGroup && isExemptConfigurationKind(r.group, r.kind, this.configGroup)) return undefined;
    return found;
  }
}
