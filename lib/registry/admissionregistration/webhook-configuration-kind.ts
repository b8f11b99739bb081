/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration,
 * cluster-scoped) as one builder makes them: served at v1 (the storage version, preferred) and
 * v1beta1 over the same etcd keys and watch cache. Each version defaults and validates as
 * Kubernetes' version does; generation counts changes of `webhooks`; DELETE answers a Status;
 * kubectl's NAME WEBHOOKS AGE.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiObject, ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { TableColumns, ageColumn, column, nameColumn } from '../../meta/table';
import { translateTimestampSince } from '../../meta/human-duration';
import { decodeProblem } from '../../scheme/decode-check';
import { Schema } from '../../scheme/schema';
import { servedOverStorage } from '../served-version';
import { defaultWebhookConfiguration, WebhookVersion } from './webhook-defaults';
import { createOptions, updateOptions, validateWebhookConfiguration } from './webhook-validation';

/** The version the configurations are stored at (and the one the admission dispatcher reads). */
export const WEBHOOK_STORAGE_VERSION = 'v1';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** kubectl's columns: WEBHOOKS counts the configuration's webhooks. */
const webhookTable: TableColumns = {
  columns: [nameColumn, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in the configuration'), ageColumn],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    Array.isArray(obj.webhooks) ? obj.webhooks.length : 0,
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

/** What tells the two kinds apart: their name, their schema, and whether their webhooks may change the object. */
export interface WebhookConfigurationKind {
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  schema: Schema;
  mutating: boolean;
}

/** One of the two kinds at `version` of the flavor's admissionregistration group. */
export function webhookConfigurationResource(naming: Naming, version: WebhookVersion, { kind, schema, mutating }: WebhookConfigurationKind): ResourceDef {
  const setDefaults = (obj: ApiObject) => defaultWebhookConfiguration(obj, version, mutating);
  const def: ResourceDef = {
    group: naming.group('admissionregistration'), version, kind, listKind: `${kind}List`,
    resource: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), namespaced: false, shortNames: [], categories: ['api-extensions'],
    verbs: VERBS, subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema, table: webhookTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, schema, kind),
      default: setDefaults,
      prepareForCreate: (obj) => setDefaults(obj),
      prepareForUpdate: (obj) => setDefaults(obj),
      specChanged: (obj, old) => !isDeepStrictEqual(obj.webhooks ?? null, old.webhooks ?? null),
      validate: (obj) => validateWebhookConfiguration(obj, mutating, createOptions(version)),
      validateUpdate: (obj, old) => validateWebhookConfiguration(obj, mutating, updateOptions(version, old, obj)),
    },
  };
  // v1beta1: deprecated in 1.16 and removed in 1.22 (the spec's table), v1 replaces it.
  // Not served unless --runtime-config switches it on, as kube-apiserver 1.32 (which no longer has it).
  if (version === 'v1beta1') {
    def.deprecation = { deprecatedIn: [1, 16], removedIn: [1, 22], replacement: { group: def.group, version: 'v1', kind } };
    def.servedByDefault = false;
  }
  return servedOverStorage(def, WEBHOOK_STORAGE_VERSION);
}
