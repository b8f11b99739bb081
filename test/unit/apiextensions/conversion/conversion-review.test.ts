import { expect } from 'chai';
import { flavors } from '../../../../lib/naming';
import { ApiObject } from '../../../../lib/scheme/types';
import {
  ReviewError, SentReview, buildConversionReview, convertedObjectsOf, decodeConvertedObject, reviewVersionFor,
} from '../../../../lib/apiextensions/conversion/conversion-review';
import { checkConvertedIdentity, restoreMetadata } from '../../../../lib/apiextensions/conversion/converted-object';

const naming = flavors.orch;
const obj = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a', namespace: 'ns', uid: 'u1' }, spec: { x: 1 } };

function reviewError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ReviewError);
    return (err as Error).message;
  }
  throw new Error('expected a ReviewError');
}

const reply = (body: unknown, contentType = 'application/json') => ({
  status: 200, contentType, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

describe('ConversionReview: request shapes', () => {
  it('picks the first of conversionReviewVersions this server speaks, in the CRD\'s order', () => {
    expect(reviewVersionFor(['v1', 'v1beta1'])).to.equal('v1');
    expect(reviewVersionFor(['v1beta1', 'v1'])).to.equal('v1beta1');
    expect(reviewVersionFor(['v2', 'v1beta1'])).to.equal('v1beta1');
    expect(reviewVersionFor(['v2'])).to.equal(undefined);
    expect(reviewVersionFor(undefined)).to.equal(undefined);
  });

  it('sends apiVersion, kind and a request with uid, desiredAPIVersion and the objects (v1 and v1beta1, both flavors)', () => {
    const sent = buildConversionReview(naming, 'v1', 'stable.example.com/v2', [obj], 'the-uid');
    expect(JSON.parse(sent.body.toString())).to.deep.equal({
      kind: 'ConversionReview', apiVersion: 'apiextensions.orch.io/v1',
      request: { uid: 'the-uid', desiredAPIVersion: 'stable.example.com/v2', objects: [obj] },
    });
    const beta = buildConversionReview(flavors.kubernetes, 'v1beta1', 'stable.example.com/v2', [obj]);
    const parsed = JSON.parse(beta.body.toString());
    expect(parsed.apiVersion).to.equal('apiextensions.k8s.io/v1beta1');
    expect(parsed.request.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(parsed.request.uid).to.equal(beta.uid);
    expect(buildConversionReview(naming, 'v1', 'x/v1', []).uid).to.not.equal(buildConversionReview(naming, 'v1', 'x/v1', []).uid);
  });
});

describe('ConversionReview: response checks with Kubernetes\' messages', () => {
  const v1: SentReview = buildConversionReview(naming, 'v1', 'stable.example.com/v2', [obj], 'u-1');
  const beta: SentReview = buildConversionReview(naming, 'v1beta1', 'stable.example.com/v2', [obj], 'u-1');
  const good = (over: Record<string, unknown> = {}, apiVersion = 'apiextensions.orch.io/v1') => ({
    apiVersion, kind: 'ConversionReview',
    response: { uid: 'u-1', result: { status: 'Success' }, convertedObjects: [{ ...obj, apiVersion: 'stable.example.com/v2' }], ...over },
  });

  it('accepts a well-formed reply and gives its converted objects', () => {
    expect(convertedObjectsOf(reply(good()), v1)).to.deep.equal([{ ...obj, apiVersion: 'stable.example.com/v2' }]);
    expect(convertedObjectsOf(reply(good({ convertedObjects: undefined })), v1)).to.deep.equal([]);
    expect(convertedObjectsOf(reply(good({}, 'apiextensions.orch.io/v1beta1')), beta)).to.have.length(1);
  });

  it('an empty reply', () => {
    expect(reviewError(() => convertedObjectsOf({ status: 200, contentType: 'application/json', body: Buffer.alloc(0) }, v1)))
      .to.equal('0-length response with status code: 200 and content type: application/json');
  });

  it('a reply that is not JSON or not an object', () => {
    expect(reviewError(() => convertedObjectsOf(reply('not json'), v1))).to.match(/^couldn't get version\/kind; json parse error: /);
    expect(reviewError(() => convertedObjectsOf(reply('[1]'), v1))).to.match(/^couldn't get version\/kind; json parse error: json: cannot unmarshal array/);
  });

  it('v1: the reply must be a v1 ConversionReview', () => {
    expect(reviewError(() => convertedObjectsOf(reply({ response: good().response }), v1)))
      .to.equal('expected webhook response of apiextensions.orch.io/v1, Kind=ConversionReview, got /, Kind=');
    expect(reviewError(() => convertedObjectsOf(reply(good({}, 'apiextensions.orch.io/v1beta1')), v1)))
      .to.equal('converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion');
    expect(reviewError(() => convertedObjectsOf(reply({ ...good(), kind: 'AdmissionReview' }), v1)))
      .to.equal('no kind "AdmissionReview" is registered for version "apiextensions.orch.io/v1"');
  });

  it('v1beta1: kind and uid are not checked (as Kubernetes), a v1 reply cannot be read', () => {
    expect(convertedObjectsOf(reply({ response: good({ uid: 'other' }).response }), beta)).to.have.length(1);
    expect(reviewError(() => convertedObjectsOf(reply(good()), beta)))
      .to.equal('converting (v1.ConversionReview) to (v1beta1.ConversionReview): unknown conversion');
  });

  it('no response', () => {
    expect(reviewError(() => convertedObjectsOf(reply({ apiVersion: 'apiextensions.orch.io/v1', kind: 'ConversionReview' }), v1))).to.equal('no response provided');
    expect(reviewError(() => convertedObjectsOf(reply({ apiVersion: 'apiextensions.orch.io/v1beta1', kind: 'ConversionReview', response: null }), beta))).to.equal('no response provided');
  });

  it('v1: the uid must be the request\'s', () => {
    expect(reviewError(() => convertedObjectsOf(reply(good({ uid: 'other' })), v1))).to.equal('expected response.uid="u-1", got "other"');
    expect(reviewError(() => convertedObjectsOf(reply(good({ uid: undefined })), v1))).to.equal('expected response.uid="u-1", got ""');
  });

  it('a result that is not Success: its message, or Kubernetes\' sentence', () => {
    expect(reviewError(() => convertedObjectsOf(reply(good({ result: { status: 'Failure', message: 'cannot convert spec.x' } })), v1)))
      .to.equal('cannot convert spec.x');
    expect(reviewError(() => convertedObjectsOf(reply(good({ result: { status: 'Failure' } })), v1)))
      .to.equal("response.result.status was 'Failure', not 'Success'");
    expect(reviewError(() => convertedObjectsOf(reply(good({ result: undefined })), v1)))
      .to.equal("response.result.status was '', not 'Success'");
  });

  it('converted objects: JSON objects with a kind', () => {
    expect(reviewError(() => decodeConvertedObject({ apiVersion: 'x/v1', metadata: {} })))
      .to.equal(`Object 'Kind' is missing in '{"apiVersion":"x/v1","metadata":{}}'`);
    expect(reviewError(() => decodeConvertedObject('text'))).to.equal('json: cannot unmarshal string into Go value of type map[string]interface {}');
    expect(reviewError(() => decodeConvertedObject(null))).to.equal("Object 'Kind' is missing in 'null'");
    expect(decodeConvertedObject({ kind: 'CronTab' })).to.deep.equal({ kind: 'CronTab' });
  });
});

describe('converted objects: identity and metadata (validateConvertedObject, restoreObjectMeta)', () => {
  const original = {
    apiVersion: 'stable.example.com/v1', kind: 'CronTab',
    metadata: {
      name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7', generation: 2, finalizers: ['f/x'],
      labels: { app: 'a' }, annotations: { note: 'n' }, managedFields: [{ manager: 'm' }],
    },
    spec: { x: 1 },
  };
  const convertedWith = (metadata: unknown): ApiObject => ({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata, spec: { y: 1 } }) as ApiObject;

  it('name, namespace and uid may not change', () => {
    expect(reviewError(() => checkConvertedIdentity(original, convertedWith({ ...original.metadata, name: 'b' })))).to.equal('must have the same name: a != b');
    expect(reviewError(() => checkConvertedIdentity(original, convertedWith({ ...original.metadata, namespace: 'other' })))).to.equal('must have the same namespace: ns != other');
    expect(reviewError(() => checkConvertedIdentity(original, convertedWith({ ...original.metadata, uid: '42' })))).to.equal('must have the same UID: u1 != 42');
    expect(reviewError(() => checkConvertedIdentity(original, convertedWith({})))).to.equal('must have the same name: a != ');
    expect(reviewError(() => checkConvertedIdentity(original, { ...convertedWith(original.metadata), kind: 'Other' }))).to.equal('must have the same kind: CronTab != Other');
    checkConvertedIdentity(original, convertedWith(original.metadata));
  });

  it('keeps the original metadata except labels and annotations, which come from the webhook', () => {
    const out = restoreMetadata(original, convertedWith({
      name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '99', generation: 9, finalizers: [], creationTimestamp: '2020-01-01T00:00:00Z',
      labels: { app: 'b', added: 'yes' }, annotations: { note: 'changed' },
    }));
    expect(out).to.deep.equal({
      apiVersion: 'stable.example.com/v2', kind: 'CronTab', spec: { y: 1 },
      metadata: { ...original.metadata, labels: { app: 'b', added: 'yes' }, annotations: { note: 'changed' } },
    });
    expect(out.metadata).to.not.equal(original.metadata);
    (out.metadata as any).finalizers.push('g/y');
    expect(original.metadata.finalizers).to.deep.equal(['f/x']);
  });

  it('labels or annotations the webhook left out are removed', () => {
    const out = restoreMetadata(original, convertedWith({ name: 'a', namespace: 'ns', uid: 'u1' }));
    expect(out.metadata).to.not.have.property('labels');
    expect(out.metadata).to.not.have.property('annotations');
    expect(out.metadata?.resourceVersion).to.equal('7');
  });

  it('refuses missing or malformed metadata and invalid labels or annotations', () => {
    const { metadata: _m, ...noMeta } = convertedWith({});
    expect(reviewError(() => restoreMetadata(original, noMeta))).to.equal('missing metadata in converted object');
    expect(reviewError(() => restoreMetadata(original, convertedWith('x')))).to.equal('invalid metadata of type string in converted object');
    expect(reviewError(() => restoreMetadata(original, convertedWith({ labels: ['a'] })))).to.equal('invalid metadata.labels of type []interface {} in converted object');
    expect(reviewError(() => restoreMetadata(original, convertedWith({ labels: { n: 5 } })))).to.equal('metadata.labels[n] must be a string, but is int64 in converted object');
    expect(reviewError(() => restoreMetadata(original, convertedWith({ annotations: { n: true } })))).to.equal('metadata.annotations[n] must be a string, but is bool in converted object');
    expect(reviewError(() => restoreMetadata(original, convertedWith({ labels: { 'a b': 'x' } })))).to.equal(
      "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    expect(reviewError(() => restoreMetadata(original, convertedWith({ annotations: { 'a b': 'x', 'c d': 'y' } })))).to.match(/^\[metadata\.annotation: Invalid value: "a b": .*, metadata\.annotation: Invalid value: "c d": .*\]$/);
  });

  it('an invalid label that the original already had is not checked again (only changes are)', () => {
    const bad = { ...original, metadata: { ...original.metadata, labels: { 'a b': 'x' } } };
    expect(restoreMetadata(bad, convertedWith({ labels: { 'a b': 'x' } })).metadata?.labels).to.deep.equal({ 'a b': 'x' });
  });
});
