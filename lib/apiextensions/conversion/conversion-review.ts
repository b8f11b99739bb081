/**
 * ConversionReview on the wire (`apiextensions.<domain>` v1 and v1beta1): the request sent to a
 * conversion webhook, and the reply read as Kubernetes' webhook client decodes it and as
 * getConvertedObjectsFromResponse checks it. Every failure is a ReviewError whose message is
 * Kubernetes' text; the converter puts `conversion webhook for <gvk> failed: ` in front.
 */
import { randomUUID } from 'node:crypto';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { CONVERSION_REVIEW_VERSIONS } from '../../registry/apiextensions/custom-resource-definitions/conversion-validation';
import { gvkString, parseGroupVersion } from './go-names';

/** The reply could not be used; the message is Kubernetes'. */
export class ReviewError extends Error {}

/** A review ready to send. */
export interface SentReview {
  uid: string;
  /** `v1` or `v1beta1`. */
  version: string;
  /** `apiextensions.<domain>/<version>`. */
  apiVersion: string;
  body: Buffer;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The first of the CRD's conversionReviewVersions this server speaks, in the CRD's order. */
export function reviewVersionFor(versions: readonly unknown[] | undefined): string | undefined {
  return (versions ?? []).find((v): v is string => typeof v === 'string' && CONVERSION_REVIEW_VERSIONS.includes(v));
}

/** The review asking for `objects` at `desiredAPIVersion` (`<group>/<version>`), with a fresh uid. */
export function buildConversionReview(naming: Naming, version: string, desiredAPIVersion: string, objects: readonly ApiObject[],
  uid: string = randomUUID()): SentReview {
  const apiVersion = `${naming.group('apiextensions')}/${version}`;
  const review = { kind: 'ConversionReview', apiVersion, request: { uid, desiredAPIVersion, objects } };
  return { uid, version, apiVersion, body: Buffer.from(JSON.stringify(review)) };
}

/**
 * The reply decoded into the review type that was sent, as client-go's decoder does: a missing
 * apiVersion or kind is taken from the expected type; the other review version cannot be
 * converted into it; another kind is not registered.
 */
function decodeReview(body: Buffer, sent: SentReview): Obj {
  let review: unknown;
  try {
    review = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ReviewError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (!isObj(review)) throw new ReviewError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(review)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  for (const f of ['apiVersion', 'kind']) {
    if (review[f] !== undefined && review[f] !== null && typeof review[f] !== 'string') {
      throw new ReviewError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(review[f])} into Go struct field .${f} of type string`);
    }
  }
  const rawApiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
  if (rawApiVersion.split('/').length > 2) throw new ReviewError(`unexpected GroupVersion string: ${rawApiVersion}`);
  const want = parseGroupVersion(sent.apiVersion);
  const got = parseGroupVersion(rawApiVersion);
  const kind = typeof review.kind === 'string' && review.kind ? review.kind : 'ConversionReview';
  let { group, version } = got;
  if (!version && !group) [group, version] = [want.group, want.version];
  if (!version && group === want.group) version = want.version;
  if (kind === 'ConversionReview' && group === want.group && CONVERSION_REVIEW_VERSIONS.includes(version)) {
    if (version !== sent.version) throw new ReviewError(`converting (${version}.ConversionReview) to (${sent.version}.ConversionReview): unknown conversion`);
    return review;
  }
  throw new ReviewError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(group ? `${group}/${version}` : version)}`);
}

/** JSON's name of a value's type, as Go's decoder reports a mismatch. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The converted objects of a 2xx reply, or a ReviewError: an empty reply, one that does not
 * decode, (v1 only) not a v1 ConversionReview or another uid, no response, a result that is not
 * Success (its message, or Kubernetes' sentence).
 */
export function convertedObjectsOf(reply: { status: number; contentType: string; body: Buffer }, sent: SentReview): unknown[] {
  if (reply.body.length === 0) {
    throw new ReviewError(`0-length response with status code: ${reply.status} and content type: ${reply.contentType}`);
  }
  const review = decodeReview(reply.body, sent);
  const response = review.response;
  if (response !== undefined && response !== null && !isObj(response)) {
    throw new ReviewError(`json: cannot unmarshal ${jsonType(response)} into Go struct field ConversionReview.response of type ${sent.version}.ConversionResponse`);
  }
  if (sent.version === 'v1') {
    // v1beta1 replies were never checked for their kind or uid; v1 replies are.
    const want = gvkString(sent.apiVersion, 'ConversionReview');
    const got = gvkString(review.apiVersion ?? '', review.kind ?? '');
    if (got !== want) throw new ReviewError(`expected webhook response of ${want}, got ${got}`);
  }
  if (!isObj(response)) throw new ReviewError('no response provided');
  if (sent.version === 'v1') {
    const uid = typeof response.uid === 'string' ? response.uid : '';
    if (uid !== sent.uid) throw new ReviewError(`expected response.uid=${JSON.stringify(sent.uid)}, got ${JSON.stringify(uid)}`);
  }
  const result = isObj(response.result) ? response.result : {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw new ReviewError(result.message);
    throw new ReviewError(`response.result.status was '${status}', not 'Success'`);
  }
  const converted = response.convertedObjects;
  if (converted === undefined || converted === null) return [];
  if (!Array.isArray(converted)) {
    throw new ReviewError(`json: cannot unmarshal ${jsonType(converted)} into Go struct field ConversionResponse.response.convertedObjects of type []runtime.RawExtension`);
  }
  return converted;
}

/**
 * One converted object as an unstructured object, or the error Go's unstructured decoder gives
 * (the object must be a JSON object with a kind).
 */
export function decodeConvertedObject(raw: unknown): ApiObject {
  if (!isObj(raw)) {
    if (raw === null || raw === undefined) throw new ReviewError("Object 'Kind' is missing in 'null'");
    throw new ReviewError(`json: cannot unmarshal ${jsonType(raw)} into Go value of type map[string]interface {}`);
  }
  if (raw.apiVersion !== undefined && typeof raw.apiVersion !== 'string') {
    throw new ReviewError(`json: cannot unmarshal ${jsonType(raw.apiVersion)} into Go struct field .apiVersion of type string`);
  }
  if (typeof raw.apiVersion === 'string' && raw.apiVersion.split('/').length > 2) {
    throw new ReviewError(`unexpected GroupVersion string: ${raw.apiVersion}`);
  }
  if (typeof raw.kind !== 'string' || !raw.kind) throw new ReviewError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  return raw as ApiObject;
}
