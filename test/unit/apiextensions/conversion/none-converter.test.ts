import { expect } from 'chai';
import { flavors } from '../../../../lib/naming';
import { ConversionError } from '../../../../lib/apiextensions/conversion/conversion-error';
import { conversionWebhookClients, converterFor } from '../../../../lib/apiextensions/conversion/converter';
import { NoneConverter } from '../../../../lib/apiextensions/conversion/none-converter';
import { conversionCrd } from '../../../helpers/conversion-webhook-server';

const naming = flavors.orch;
const cron = (apiVersion: string, name = 'a', extra: Record<string, unknown> = {}) => ({
  apiVersion, kind: 'CronTab', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { cronSpec: '* * * * */5' }, ...extra,
});

function thrown(fn: () => unknown): ConversionError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ConversionError);
    return err as ConversionError;
  }
  throw new Error('expected a ConversionError');
}

describe('None conversion (Kubernetes nopConverter)', () => {
  const converter = converterFor(conversionCrd({ strategy: 'None' }, { versions: ['v1', 'v2', 'v3'] }), { naming });

  it('is chosen for strategy None and when spec.conversion is absent, and answers synchronously', () => {
    expect(converter).to.be.instanceOf(NoneConverter);
    expect(converter.strategy).to.equal('None');
    expect(converterFor(conversionCrd(undefined), { naming })).to.be.instanceOf(NoneConverter);
    expect(converter.convert([cron('stable.example.com/v1')], 'v2')).to.be.an('array');
  });

  it('rewrites apiVersion and nothing else, without touching the input', () => {
    const input = cron('stable.example.com/v1', 'a', { status: { x: 1 } });
    const before = structuredClone(input);
    const [out] = converter.convert([input], 'v2') as Record<string, unknown>[];
    expect(out).to.deep.equal({ ...before, apiVersion: 'stable.example.com/v2' });
    expect(Object.keys(out)[0]).to.equal('apiVersion');
    expect(input).to.deep.equal(before);
  });

  it('returns objects already at the version as they are, and keeps the order of a mixed batch', () => {
    const at = cron('stable.example.com/v2', 'b');
    const out = converter.convert([cron('stable.example.com/v1', 'a'), at, cron('stable.example.com/v3', 'c')], 'v2', { list: true }) as Record<string, any>[];
    expect(out.map((o) => [o.metadata.name, o.apiVersion])).to.deep.equal([
      ['a', 'stable.example.com/v2'], ['b', 'stable.example.com/v2'], ['c', 'stable.example.com/v2'],
    ]);
    expect(out[1]).to.equal(at);
    expect(converter.convert([], 'v1')).to.deep.equal([]);
  });

  it('refuses versions the CRD does not have, with Kubernetes\' messages', () => {
    expect(thrown(() => converter.convert([cron('stable.example.com/v1')], 'v9')).message)
      .to.equal('request to convert CR to an invalid group/version: stable.example.com/v9');
    expect(thrown(() => converter.convert([cron('stable.example.com/v7')], 'v2')).message)
      .to.equal('request to convert CR from an invalid group/version: stable.example.com/v7');
    expect(thrown(() => converter.convert([cron('other.example.com/v1')], 'v2')).message)
      .to.equal('request to convert CR from an invalid group/version: other.example.com/v1');
    expect(thrown(() => converter.convert([cron('stable.example.com/v1'), cron('v1', 'b')], 'v2', { list: true })).message)
      .to.equal('request to convert CR list failed, list index 1 has invalid group/version: v1');
    expect(thrown(() => converter.convert([{ kind: 'CronTab' }], 'v2')).message)
      .to.equal('request to convert CR from an invalid group/version: ');
  });

  it('answers a failed conversion as Kubernetes does: 500 with the message and no reason', () => {
    const status = thrown(() => converter.convert([cron('stable.example.com/v1')], 'v9')).toStatus();
    expect(status).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'request to convert CR to an invalid group/version: stable.example.com/v9',
    });
  });

  it('refuses an unknown strategy, and a Webhook CRD without clients', () => {
    expect(thrown(() => converterFor(conversionCrd({ strategy: 'Magic' }), { naming })).message)
      .to.equal('unknown conversion strategy "Magic" for CRD crontabs.stable.example.com');
    expect(() => converterFor(conversionCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x' } } }), { naming }))
      .to.throw('needs deps.clients');
    const clients = conversionWebhookClients();
    try {
      const c = converterFor(conversionCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x' } } }), { naming, clients });
      expect(c.strategy).to.equal('Webhook');
    } finally {
      clients.close();
    }
  });
});
