/**
 * The contract between the parts that serve custom resources (issue 18; see
 * /work/notes/crd-design.md sections 2.1, 2.2 and 5.1):
 *  - the CRD serving controller (lib/apiextensions/serving/crd-serving-controller.ts) follows
 *    the CRDs and, for each one to serve, asks a CrServingFactory for a CrServing bundle, makes
 *    its stores and watch cache, and adds its defs to the served set;
 *  - the factory (lib/apiextensions/serving/cr-resource-def.ts) turns a CRD into ResourceDefs
 *    (one per served version: schema, strategy, table, subresources) and custom handlers
 *    (`/scale`).
 */
import type { CustomHandlers } from '../../api/resource-handler';
import type { Naming } from '../../naming';
import type { WebhookClients } from '../../admission/webhook/webhook-client';
import type { ApiObject, ResourceDef } from '../../scheme/types';

/** Everything needed to serve one CRD's custom resources at every served version. */
export interface CrServing {
  /** The CRD's metadata.uid: a deleted and recreated CRD is another bundle. */
  uid: string;
  /** The CRD's metadata.name (`<plural>.<group>`). */
  name: string;
  group: string;
  plural: string;
  /** Where the objects live under the etcd prefix: `<group>/<plural>` (Kubernetes' CR key layout). */
  keySegment: string;
  /** The version objects are stored in (the one with `storage: true`). */
  storageVersion: string;
  /** One def per served version, keyed by version name. */
  defs: Map<string, ResourceDef>;
  /** Handlers of what the generic store does not do (the `/scale` subresource), keyed by customKey(). */
  customHandlers: CustomHandlers;
  /** The CRD is being deleted: creates are refused, discovery lists fewer verbs. */
  terminating: boolean;
  /** The CRD's metadata.generation the bundle was built from. */
  generation: number;
}

/** What a factory may use beyond the CRD. */
export interface CrServingDeps {
  naming: Naming;
  /** The clients conversion webhooks are called with (needed to serve a `Webhook` CRD). */
  conversionClients?: WebhookClients;
}

/** Builds the bundle of a CRD (assumed valid: it was validated on write). Throws when it cannot. */
export type CrServingFactory = (crd: ApiObject, deps: CrServingDeps) => CrServing;
