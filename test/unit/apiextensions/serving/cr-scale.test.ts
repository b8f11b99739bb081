import { expect } from 'chai';
import { UNSET_SPEC_REPLICAS, nestedInt64, scaleFromCustomResource, withSpecReplicas } from '../../../../lib/apiextensions/serving/cr-scale';
import { scaleKind } from '../../../../lib/api/handlers/scale';
import { cronTab } from '../../../helpers/crd-fixtures';

const paths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' };
const cr = () => cronTab('a', { replicas: 3 }, {
  metadata: { name: 'a', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2024-01-01T00:00:00Z', labels: { x: 'y' } },
  status: { replicas: 2, labelSelector: 'app=a' },
});

describe('custom-resource /scale conversion', () => {
  it('reads an autoscaling/v1 Scale from the CR paths, with the metadata Kubernetes copies', () => {
    expect(scaleFromCustomResource(cr(), paths)).to.deep.equal({
      replicasFound: true,
      scale: {
        kind: 'Scale', apiVersion: 'autoscaling/v1',
        metadata: { name: 'a', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2024-01-01T00:00:00Z' },
        spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=a' },
      },
    });
  });

  it('reads missing replicas as 0 (reporting spec replicas as not found) and omits an empty selector', () => {
    const res = scaleFromCustomResource(cronTab('a'), paths);
    expect(res.replicasFound).to.equal(false);
    expect(res.scale!.spec).to.deep.equal({ replicas: 0 });
    expect(res.scale!.status).to.deep.equal({ replicas: 0 });
    expect(scaleFromCustomResource(cr(), { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' }).scale!.status).to.deep.equal({ replicas: 2 });
  });

  it("reports Kubernetes' accessor errors for values of the wrong type", () => {
    expect(scaleFromCustomResource(cronTab('a', { replicas: '3' }), paths).error).to.equal('.spec.replicas accessor error: 3 is of the type string, expected int64');
    expect(scaleFromCustomResource(cronTab('a', [] as never), paths).error).to.equal('.spec.replicas accessor error: [] is of the type []interface {}, expected map[string]interface{}');
    expect(scaleFromCustomResource(cronTab('a', { replicas: 1 }, { status: { labelSelector: { a: 1 } } }), paths).error)
      .to.equal('.status.labelSelector accessor error: map[a:1] is of the type map[string]interface {}, expected string');
    expect(nestedInt64({ spec: null }, '.spec.replicas')).to.deep.equal({ value: 0, found: false });
  });

  it('writes replicas at specReplicasPath, creating missing objects, without touching the input', () => {
    const before = cronTab('a');
    const after = withSpecReplicas(before, { specReplicasPath: '.spec.deep.count', statusReplicasPath: '.status.r' }, 5);
    expect(after.spec).to.deep.equal({ deep: { count: 5 } });
    expect(before.spec).to.deep.equal({});
    expect(withSpecReplicas(cr(), paths, 7).spec).to.deep.equal({ replicas: 7 });
  });

  it('marks a missing spec replicas with the smallest int32, as Kubernetes signals it to patches', () => {
    expect(UNSET_SPEC_REPLICAS).to.equal(-2147483648);
  });

  it("refuses Scale bodies whose replicas do not fit Go's int32, with the decoder's words", () => {
    const check = (spec: unknown) => scaleKind.strategy.checkDecode!({ spec } as never);
    expect(check({ replicas: 3 })).to.equal(undefined);
    expect(check({ replicas: '3' })).to.equal('json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32');
    expect(check({ replicas: 1.5 })).to.equal('json: cannot unmarshal number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32');
    expect(check({ replicas: 2147483648 })).to.equal('json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32');
  });
});
