/**
 * The webhook converter against a conversion webhook the test serves (real HTTPS with a test CA;
 * no etcd: conversion needs none).
 */
import { expect } from 'chai';
import { freeLoopbackPort as closedPort } from '../../../helpers/free-port';
import { flavors } from '../../../../lib/naming';
import { ApiObject } from '../../../../lib/scheme/types';
import { WebhookClients } from '../../../../lib/admission/webhook/webhook-client';
import { ConversionError } from '../../../../lib/apiextensions/conversion/conversion-error';
import { conversionWebhookClients, converterFor } from '../../../../lib/apiextensions/conversion/converter';
import { Converter } from '../../../../lib/apiextensions/conversion/converter-interface';
import {
  ConversionWebhookServer, conversionCrd, convertWith, failure, relabel, requestedObjects, startConversionWebhookServer,
} from '../../../helpers/conversion-webhook-server';

const naming = flavors.orch;
const GVK_V1 = 'stable.example.com/v1, Kind=CronTab';
const LIST_V2 = 'stable.example.com/v2, Kind=CronTabList';

const cron = (version: string, name: string, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: `stable.example.com/${version}`, kind: 'CronTab',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', generation: 1, labels: { app: name } },
  spec: { cronSpec: '*/5 * * * *' }, ...extra,
});

async function rejection(p: unknown): Promise<ConversionError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ConversionError);
    return err as ConversionError;
  }
  throw new Error('expected a ConversionError');
}


describe('Webhook conversion against a served conversion webhook', function () {
  this.timeout(30_000);
  let hook: ConversionWebhookServer;
  let clients: WebhookClients;

  const converter = (path: string, reviewVersions = ['v1', 'v1beta1'], extra: Record<string, unknown> = {}, timeoutSeconds?: number): Converter =>
    converterFor(conversionCrd({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: reviewVersions, clientConfig: { ...hook.clientConfig(path), ...extra } },
    }), { naming, clients, timeoutSeconds });

  before(async () => {
    hook = await startConversionWebhookServer({ serviceNames: ['conv.webhooks.svc'] });
  });
  after(async () => {
    await hook.stop();
  });
  beforeEach(() => {
    clients = conversionWebhookClients();
    hook.calls.length = 0;
    hook.handlers.clear();
  });
  afterEach(() => clients.close());

  it('v1: sends a ConversionReview with uid, desiredAPIVersion and the object, and takes the converted object', async () => {
    hook.handlers.set('/v1', (call) => convertWith(call, (o, desired) => ({ ...o, apiVersion: desired, spec: { schedule: o.spec.cronSpec } })));
    const c = converter('/v1');
    expect(c.strategy).to.equal('Webhook');
    const [out] = await c.convert([cron('v1', 'a')], 'v2');
    expect(out).to.deep.equal({ ...cron('v1', 'a'), apiVersion: 'stable.example.com/v2', spec: { schedule: '*/5 * * * *' } });
    const [call] = hook.callsTo('/v1');
    expect(call.review.apiVersion).to.equal('apiextensions.orch.io/v1');
    expect(call.review.kind).to.equal('ConversionReview');
    expect(call.review.request.desiredAPIVersion).to.equal('stable.example.com/v2');
    expect(call.review.request.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(call.review.request.objects).to.deep.equal([cron('v1', 'a')]);
    expect(call.timeout).to.equal('30s');
    expect(call.headers['content-type']).to.equal('application/json');
    expect(call.clientCn).to.equal(undefined);
  });

  it('v1beta1 when it comes first among the versions this server knows', async () => {
    const c = converter('/beta', ['v9', 'v1beta1', 'v1']);
    const [out] = await c.convert([cron('v1', 'a')], 'v2');
    expect(out.apiVersion).to.equal('stable.example.com/v2');
    expect(hook.callsTo('/beta')[0].review.apiVersion).to.equal('apiextensions.orch.io/v1beta1');
  });

  it('the kubernetes flavor speaks apiextensions.k8s.io', async () => {
    const c = converterFor(conversionCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: hook.clientConfig('/k8s') } }),
      { naming: flavors.kubernetes, clients });
    await c.convert([cron('v1', 'a')], 'v2');
    expect(hook.callsTo('/k8s')[0].review.apiVersion).to.equal('apiextensions.k8s.io/v1');
  });

  it('a list page: one review for the items not at the version, results back in their places', async () => {
    const c = converter('/list');
    const items = [cron('v1', 'a'), cron('v2', 'b'), cron('v1', 'c')];
    const out = await c.convert(items, 'v2', { list: true });
    expect(out.map((o) => [o.metadata?.name, o.apiVersion])).to.deep.equal([
      ['a', 'stable.example.com/v2'], ['b', 'stable.example.com/v2'], ['c', 'stable.example.com/v2'],
    ]);
    expect(out[1]).to.equal(items[1]);
    const calls = hook.callsTo('/list');
    expect(calls).to.have.length(1);
    expect(requestedObjects(calls[0]).map((o) => o.metadata.name)).to.deep.equal(['a', 'c']);
  });

  it('no call when every object is at the version already; single objects each get their own review', async () => {
    const c = converter('/none');
    const at = cron('v2', 'a');
    expect(await c.convert([at], 'v2')).to.deep.equal([at]);
    expect(await c.convert([at, cron('v2', 'b')], 'v2', { list: true })).to.have.length(2);
    expect(await c.convert([{ apiVersion: 'stable.example.com/v1', kind: 'CronTab' }], 'v2')).to.deep.equal([{ apiVersion: 'stable.example.com/v2', kind: 'CronTab' }]);
    expect(hook.callsTo('/none')).to.have.length(0);
    await c.convert([cron('v1', 'a'), cron('v1', 'b')], 'v2');
    expect(hook.callsTo('/none').map((call) => requestedObjects(call).length)).to.deep.equal([1, 1]);
  });

  it('a Failure result: its message; without one, Kubernetes\' sentence', async () => {
    hook.handlers.set('/fail', (call) => failure(call, 'spec.cronSpec cannot be converted'));
    hook.handlers.set('/fail-bare', (call) => failure(call));
    expect((await rejection(converter('/fail').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: spec.cronSpec cannot be converted`);
    expect((await rejection(converter('/fail').convert([cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} failed: spec.cronSpec cannot be converted`);
    expect((await rejection(converter('/fail-bare').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: response.result.status was 'Failure', not 'Success'`);
  });

  it('the failure reaches clients as Kubernetes answers it: 500, the message, no reason', async () => {
    hook.handlers.set('/fail', (call) => failure(call, 'nope'));
    const err = await rejection(converter('/fail').convert([cron('v1', 'a')], 'v2'));
    expect(err.toStatus()).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: `conversion webhook for ${GVK_V1} failed: nope`,
    });
  });

  it('malformed replies: another uid, no response, a v1beta1 reply to a v1 review, an empty body', async () => {
    hook.handlers.set('/uid', (call) => ({ response: { ...relabel(call).response, uid: 'someone-else' } }));
    hook.handlers.set('/noresp', () => ({ response: undefined }));
    hook.handlers.set('/beta-reply', (call) => ({ ...relabel(call), apiVersion: 'apiextensions.orch.io/v1beta1' }));
    hook.handlers.set('/empty', () => ({ raw: '' }));
    const uidErr = await rejection(converter('/uid').convert([cron('v1', 'a')], 'v2'));
    expect(uidErr.message).to.match(new RegExp(`^conversion webhook for ${GVK_V1} failed: expected response.uid="[0-9a-f-]{36}", got "someone-else"$`));
    expect((await rejection(converter('/noresp').convert([cron('v1', 'a')], 'v2'))).message).to.equal(`conversion webhook for ${GVK_V1} failed: no response provided`);
    expect((await rejection(converter('/beta-reply').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion`);
    expect((await rejection(converter('/empty').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: 0-length response with status code: 200 and content type: application/json`);
  });

  it('a wrong number of converted objects', async () => {
    hook.handlers.set('/count', (call) => ({ response: { ...relabel(call).response, convertedObjects: [] } }));
    expect((await rejection(converter('/count').convert([cron('v1', 'a'), cron('v1', 'b')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} returned 0 objects, expected 2`);
    expect((await rejection(converter('/count').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} returned 0 objects, expected 1`);
  });

  it('converted objects with the wrong apiVersion or kind', async () => {
    hook.handlers.set('/stay', (call) => convertWith(call, (o) => o));
    hook.handlers.set('/kind', (call) => convertWith(call, (o, desired) => ({ ...o, apiVersion: desired, kind: 'Other' })));
    hook.handlers.set('/nokind', (call) => convertWith(call, (o, desired) => ({ apiVersion: desired, metadata: o.metadata })));
    expect((await rejection(converter('/stay').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`);
    expect((await rejection(converter('/stay').convert([cron('v2', 'z'), cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} returned invalid converted object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`);
    expect((await rejection(converter('/kind').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} returned invalid object at index 0: invalid kind (expected CronTab, received Other)`);
    expect((await rejection(converter('/kind').convert([cron('v1', 'a'), cron('v1', 'b')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} returned invalid converted object at index 0: invalid kind (expected CronTab, received Other)`);
    const noKind = await rejection(converter('/nokind').convert([cron('v1', 'a')], 'v2'));
    expect(noKind.message).to.match(/^Object 'Kind' is missing in '\{"apiVersion":"stable.example.com\/v2"/);
    expect((await rejection(converter('/nokind').convert([cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.match(new RegExp(`^conversion webhook for ${LIST_V2} returned invalid converted object at index 0: Object 'Kind' is missing in`));
  });

  it('a metadata-changing webhook: identity changes refused, labels and annotations kept, the rest restored', async () => {
    hook.handlers.set('/uid-change', (call) => convertWith(call, (o, desired) => ({ ...o, apiVersion: desired, metadata: { ...o.metadata, uid: '42' } })));
    hook.handlers.set('/rename', (call) => convertWith(call, (o, desired) => ({ ...o, apiVersion: desired, metadata: { ...o.metadata, name: 'x' } })));
    hook.handlers.set('/meta', (call) => convertWith(call, (o, desired) => ({
      ...o, apiVersion: desired,
      metadata: { ...o.metadata, resourceVersion: '999', generation: 7, finalizers: ['evil/x'], labels: { app: 'changed', v: desired.split('/')[1] }, annotations: { converted: 'yes' } },
    })));
    hook.handlers.set('/bad-label', (call) => convertWith(call, (o, desired) => ({ ...o, apiVersion: desired, metadata: { ...o.metadata, labels: { 'a b': 'x' } } })));
    expect((await rejection(converter('/uid-change').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} returned invalid object: must have the same UID: uid-a != 42`);
    expect((await rejection(converter('/rename').convert([cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} returned invalid converted object at index 0: must have the same name: a != x`);
    const [out] = await converter('/meta').convert([cron('v1', 'a')], 'v2');
    expect(out.metadata).to.deep.equal({
      name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '5', generation: 1,
      labels: { app: 'changed', v: 'v2' }, annotations: { converted: 'yes' },
    });
    expect((await rejection(converter('/bad-label').convert([cron('v1', 'a')], 'v2'))).message)
      .to.match(new RegExp(`^conversion webhook for ${GVK_V1} returned invalid metadata: metadata.labels: Invalid value: "a b": name part must consist of`));
    expect((await rejection(converter('/bad-label').convert([cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.match(new RegExp(`^conversion webhook for ${LIST_V2} returned invalid metadata in object at index 0: metadata.labels: Invalid value`));
  });

  it('times out a webhook that answers too late or not at all', async () => {
    hook.handlers.set('/slow', (call) => ({ ...relabel(call), delayMs: 2500 }));
    hook.handlers.set('/hang', () => 'hang');
    expect((await rejection(converter('/slow', ['v1'], {}, 1).convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: Post "${hook.url('/slow')}?timeout=1s": context deadline exceeded`);
    expect((await rejection(converter('/hang', ['v1'], {}, 1).convert([cron('v1', 'a')], 'v2', { list: true }))).message)
      .to.equal(`conversion webhook for ${LIST_V2} failed: Post "${hook.url('/hang')}?timeout=1s": context deadline exceeded`);
    expect(hook.callsTo('/slow')[0].timeout).to.equal('1s');
  });

  it('an unreachable webhook, an untrusted certificate, an error status', async () => {
    const port = await closedPort();
    const down = converterFor(conversionCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: hook.caBundle } } }), { naming, clients });
    expect((await rejection(down.convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    expect((await rejection(converter('/x', ['v1'], { caBundle: undefined }).convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: Post "${hook.url('/x')}?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    expect((await rejection(converter('/x', ['v1'], { caBundle: Buffer.from('  \n').toString('base64') }).convert([cron('v1', 'a')], 'v2'))).message)
      .to.contain('certificate signed by unknown authority');
    hook.handlers.set('/404', () => ({ status: 404, raw: '404 page not found' }));
    hook.handlers.set('/500', () => ({ status: 500, raw: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'converter crashed', code: 500 }) }));
    expect((await rejection(converter('/404').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: the server could not find the requested resource`);
    expect((await rejection(converter('/500').convert([cron('v1', 'a')], 'v2'))).message)
      .to.equal(`conversion webhook for ${GVK_V1} failed: converter crashed`);
  });

  it('reaches a service through the clients\' service resolver (port 443 unless given, its path)', async () => {
    const seen: Array<[string, string, number]> = [];
    clients.setServiceResolver(async (ns, name, port) => {
      seen.push([ns, name, port]);
      return { host: '127.0.0.1', port: hook.port };
    });
    const crd = conversionCrd({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'webhooks', name: 'conv', path: '/svc' }, caBundle: hook.caBundle } },
    });
    const [out] = await converterFor(crd, { naming, clients }).convert([cron('v1', 'a')], 'v2');
    expect(out.apiVersion).to.equal('stable.example.com/v2');
    expect(seen).to.deep.equal([['webhooks', 'conv', 443]]);
    expect(hook.callsTo('/svc')[0].headers.host).to.equal('conv.webhooks.svc');
  });

  it('a CRD listing no review version this server knows cannot convert', async () => {
    const c = converter('/x', ['v2']);
    expect((await rejection(c.convert([cron('v1', 'a')], 'v2'))).message).to.equal('no supported conversion review versions');
    expect(hook.calls).to.have.length(0);
  });

  it('refuses versions the CRD does not have before calling', async () => {
    expect((await rejection(converter('/x').convert([cron('v3', 'a')], 'v2'))).message)
      .to.equal('request to convert CR from an invalid group/version: stable.example.com/v3');
    expect(hook.calls).to.have.length(0);
  });
});

