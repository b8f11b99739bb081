/**
 * PriorityLevelConfiguration between flowcontrol v1 (stored) and its removed beta versions
 * (priority-level-configurations/beta-versions.ts): v1beta1 and v1beta2 rename the Limited
 * level's shares `assuredConcurrencyShares` (written always); v1beta3 keeps a zero through the
 * `flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares` annotation, added on the way
 * out and dropped on the way in, as Kubernetes' conversions do.
 */
import { expect } from 'chai';
import {
  assuredToNominal, fromV1beta3, nominalToAssured, toV1beta3,
} from '../../../../lib/registry/flowcontrol/priority-level-configurations/beta-versions';
import { PRESERVE_ZERO_SHARES_ANNOTATION } from '../../../../lib/registry/flowcontrol/priority-level-configurations/validation';
import { ApiObject } from '../../../../lib/scheme/types';

const LIMIT = { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } };
const plc = (limited: Record<string, unknown>, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration',
  metadata: { name: 'p', ...(annotations ? { annotations } : {}) }, spec: { type: 'Limited', limited },
});

describe('PriorityLevelConfiguration v1 <-> v1beta1, v1beta2, v1beta3', () => {
  it('v1beta1/v1beta2: nominalConcurrencyShares is assuredConcurrencyShares, both ways, other fields kept', () => {
    const stored = plc({ nominalConcurrencyShares: 7, limitResponse: LIMIT, lendablePercent: 10, borrowingLimitPercent: 20 });
    const beta = nominalToAssured(stored);
    expect((beta.spec as any).limited).to.deep.equal({ assuredConcurrencyShares: 7, limitResponse: LIMIT, lendablePercent: 10, borrowingLimitPercent: 20 });
    expect((stored.spec as any).limited.nominalConcurrencyShares, 'the stored object is not changed').to.equal(7);
    assuredToNominal(beta);
    expect(beta.spec).to.deep.equal(stored.spec);
  });

  it('v1beta1/v1beta2: the shares are a value written always (0 when unset); Exempt levels are untouched', () => {
    expect((nominalToAssured(plc({ limitResponse: LIMIT })).spec as any).limited.assuredConcurrencyShares).to.equal(0);
    const exempt: ApiObject = { kind: 'PriorityLevelConfiguration', metadata: { name: 'e' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 3 } } };
    expect(nominalToAssured(exempt)).to.deep.equal(exempt);
  });

  it('v1beta3: zero shares read with the preserve-zero annotation (value ""), which is dropped on the way in', () => {
    const zero = plc({ nominalConcurrencyShares: 0, limitResponse: LIMIT }, { a: 'b' });
    const beta3 = toV1beta3(zero);
    expect(beta3.metadata!.annotations).to.deep.equal({ a: 'b', [PRESERVE_ZERO_SHARES_ANNOTATION]: '' });
    expect((beta3.spec as any).limited.nominalConcurrencyShares).to.equal(0);
    expect(zero.metadata!.annotations, 'the stored object is not changed').to.deep.equal({ a: 'b' });
    fromV1beta3(beta3);
    expect(beta3.metadata!.annotations).to.deep.equal({ a: 'b' });
  });

  it('v1beta3: non-zero shares get no annotation; dropping the only annotation drops the map', () => {
    const some = plc({ nominalConcurrencyShares: 5, limitResponse: LIMIT });
    expect(toV1beta3(some)).to.equal(some);
    const only = plc({ nominalConcurrencyShares: 0 }, { [PRESERVE_ZERO_SHARES_ANNOTATION]: 'true' });
    fromV1beta3(only);
    expect(only.metadata).to.deep.equal({ name: 'p' });
  });
});
