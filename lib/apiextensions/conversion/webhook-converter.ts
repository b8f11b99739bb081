/**
 * Conversion strategy `Webhook` (Kubernetes' webhookConverter): the objects not yet at the
 * desired version go to the CRD's conversion webhook in one ConversionReview (the first of
 * conversionReviewVersions this server speaks), and what comes back is checked object by object
 * (version, kind, name, namespace, uid) with the original metadata restored except labels and
 * annotations. Any failure rejects with a ConversionError carrying Kubernetes' message.
 */
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { WebhookClients, WebhookReply, WebhookTarget } from '../../admission/webhook/webhook-client';
import { CallingWebhookError } from '../../admission/webhook/webhook-errors';
import { crdSpec } from '../../registry/apiextensions/custom-resource-definitions/view';
import { ConversionError } from './conversion-error';
import { groupVersionString, gvkString } from './go-names';
import { conversionTarget } from './conversion-client';
import { ReviewError, buildConversionReview, convertedObjectsOf, decodeConvertedObject, reviewVersionFor } from './conversion-review';
import { checkConvertedIdentity, restoreMetadata } from './converted-object';
import { CrdConversionInfo, checkVersions } from './crd-conversion-info';
import type { AsyncConverter, ConvertOptions } from './converter-interface';

/** What a webhook converter calls with. */
export interface WebhookConverterDeps {
  naming: Naming;
  clients: WebhookClients;
  /** Whole-call timeout (default 30 s, Kubernetes'). */
  timeoutSeconds?: number;
}

/** Only `apiVersion` and `kind`: converted without a call, as Kubernetes does for such probes. */
function isEmptyObject(o: ApiObject): boolean {
  const keys = Object.keys(o);
  return keys.length === 2 && 'apiVersion' in o && 'kind' in o;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The `Webhook` converter of one CRD. */
export class WebhookConverter implements AsyncConverter {
  readonly strategy = 'Webhook';
  private readonly target: WebhookTarget;
  private readonly reviewVersions: readonly unknown[];

  constructor(crd: ApiObject, private readonly info: CrdConversionInfo, private readonly deps: WebhookConverterDeps) {
    this.target = conversionTarget(crd, deps.timeoutSeconds);
    const listed = crdSpec(crd).conversion?.webhook?.conversionReviewVersions;
    this.reviewVersions = Array.isArray(listed) ? listed : [];
  }

  async convert(objects: readonly ApiObject[], toVersion: string, opts: ConvertOptions = {}): Promise<ApiObject[]> {
    checkVersions(this.info, objects, toVersion, !!opts.list);
    if (opts.list) return this.convertList(objects, toVersion);
    return Promise.all(objects.map((o) => this.convertOne(o, toVersion)));
  }

  private reviewVersion(): string {
    const version = reviewVersionFor(this.reviewVersions);
    if (!version) throw new ConversionError('no supported conversion review versions');
    return version;
  }

  /** One review for `objects`; the converted objects once the reply passed the review checks. */
  private async call(version: string, objects: readonly ApiObject[], desired: string, gvk: string): Promise<unknown[]> {
    const sent = buildConversionReview(this.deps.naming, version, desired, objects);
    let reply: WebhookReply;
    try {
      reply = await this.deps.clients.call(this.target, sent.body);
    } catch (err) {
      if (err instanceof CallingWebhookError) throw new ConversionError(`conversion webhook for ${gvk} failed: ${err.detail}`);
      throw err;
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(reply, sent);
    } catch (err) {
      if (err instanceof ReviewError) throw new ConversionError(`conversion webhook for ${gvk} failed: ${err.message}`);
      throw err;
    }
    if (converted.length !== objects.length) {
      throw new ConversionError(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${objects.length}`);
    }
    return converted;
  }

  private async convertOne(obj: ApiObject, toVersion: string): Promise<ApiObject> {
    const desired = `${this.info.group}/${toVersion}`;
    if (isEmptyObject(obj)) return obj.apiVersion === desired ? obj : { ...obj, apiVersion: desired };
    const version = this.reviewVersion();
    if (obj.apiVersion === desired) return obj;
    const gvk = gvkString(obj.apiVersion, obj.kind);
    const [raw] = await this.call(version, [obj], desired, gvk);
    let converted: ApiObject;
    try {
      converted = decodeConvertedObject(raw);
    } catch (err) {
      // Kubernetes returns this decoding error as it is, without naming the webhook.
      throw new ConversionError(messageOf(err));
    }
    const invalid = (detail: string) => new ConversionError(`conversion webhook for ${gvk} returned invalid object at index 0: ${detail}`);
    const gotGv = groupVersionString(converted.apiVersion);
    if (gotGv !== desired) throw invalid(`invalid groupVersion (expected ${desired}, received ${gotGv})`);
    if (converted.kind !== obj.kind) throw invalid(`invalid kind (expected ${String(obj.kind ?? '')}, received ${String(converted.kind)})`);
    try {
      checkConvertedIdentity(obj, converted);
    } catch (err) {
      throw new ConversionError(`conversion webhook for ${gvk} returned invalid object: ${messageOf(err)}`);
    }
    try {
      return restoreMetadata(obj, converted);
    } catch (err) {
      throw new ConversionError(`conversion webhook for ${gvk} returned invalid metadata: ${messageOf(err)}`);
    }
  }

  /** A list's items: one review for every item not at the version; the others stay where they are. */
  private async convertList(items: readonly ApiObject[], toVersion: string): Promise<ApiObject[]> {
    const desired = `${this.info.group}/${toVersion}`;
    const version = this.reviewVersion();
    const pending = items.filter((o) => o.apiVersion !== desired);
    if (pending.length === 0) return [...items];
    const gvk = `${this.info.group}/${toVersion}, Kind=${this.info.listKind}`;
    const converted = await this.call(version, pending, desired, gvk);
    let next = 0;
    return items.map((original) => {
      if (original.apiVersion === desired) return original;
      const i = next++;
      const invalid = (detail: string) => new ConversionError(`conversion webhook for ${gvk} returned invalid converted object at index ${i}: ${detail}`);
      let obj: ApiObject;
      try {
        obj = decodeConvertedObject(converted[i]);
      } catch (err) {
        throw invalid(messageOf(err));
      }
      const gotGv = groupVersionString(obj.apiVersion);
      if (gotGv !== desired) throw invalid(`invalid groupVersion (expected ${desired}, received ${gotGv})`);
      if (obj.kind !== original.kind) throw invalid(`invalid kind (expected ${String(original.kind ?? '')}, received ${String(obj.kind)})`);
      try {
        checkConvertedIdentity(original, obj);
      } catch (err) {
        throw invalid(messageOf(err));
      }
      try {
        return restoreMetadata(original, obj);
      } catch (err) {
        throw new ConversionError(`conversion webhook for ${gvk} returned invalid metadata in object at index ${i}: ${messageOf(err)}`);
      }
    });
  }
}
