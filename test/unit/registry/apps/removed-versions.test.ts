/**
 * The removed workload versions' conversions and protobuf: spec.rollbackTo and
 * spec.templateGeneration carried in apps/v1's annotations as Kubernetes carries them (both ways,
 * other annotations untouched), the old versions' selector default, and the messages with
 * Kubernetes' field numbers (rollbackTo 8, templateGeneration 5, the old Scale's map selector).
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../../helpers/protoc';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { encodeMessage } from '../../../../lib/scheme/protobuf/message-codec';
import {
  ROLLBACK_TO_ANNOTATION, defaultSelectorFromTemplate, rollbackToAnnotation, rollbackToField, templateGenerationAnnotation, templateGenerationField,
} from '../../../../lib/registry/apps/removed-fields';
import { ApiObject } from '../../../../lib/scheme/types';

const TG = 'deprecated.daemonset.template.generation';
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const deployment = (spec: Record<string, unknown>, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'd', ...(annotations ? { annotations } : {}) }, spec: { template, ...spec },
});

describe('removed workload versions: conversions', () => {
  describe('Deployment spec.rollbackTo <-> deprecated.deployment.rollback.to', () => {
    const cases: Array<[string, Record<string, unknown> | undefined, Record<string, string> | undefined, Record<string, string> | undefined]> = [
      ['a revision', { revision: 5 }, { keep: 'me' }, { keep: 'me', [ROLLBACK_TO_ANNOTATION]: '5' }],
      ['revision 0 (the last revision: rollbackTo {})', {}, undefined, { [ROLLBACK_TO_ANNOTATION]: '0' }],
      ['no rollbackTo and a stale annotation: the annotation goes', undefined, { [ROLLBACK_TO_ANNOTATION]: '3', keep: 'me' }, { keep: 'me' }],
      ['nothing at all', undefined, undefined, undefined],
    ];
    for (const [what, rollbackTo, annotations, stored] of cases) {
      it(`${what}: stored as apps/v1 holds it, and back`, () => {
        const obj = deployment(rollbackTo ? { rollbackTo } : {}, annotations);
        const v1 = rollbackToAnnotation(obj);
        expect(v1.metadata?.annotations).to.deep.equal(stored);
        expect(v1.spec).to.not.have.property('rollbackTo');
        const back = rollbackToField(v1);
        expect((back.spec as Record<string, unknown>).rollbackTo).to.deep.equal(rollbackTo);
        if (rollbackTo || !annotations?.[ROLLBACK_TO_ANNOTATION]) expect(back).to.deep.equal(obj);
      });
    }

    it('an empty or non-numeric annotation is no rollbackTo and stays an annotation', () => {
      for (const value of ['', 'x']) {
        const v1 = deployment({}, { [ROLLBACK_TO_ANNOTATION]: value });
        const old = rollbackToField(v1);
        expect(old.spec).to.not.have.property('rollbackTo');
        expect(old.metadata?.annotations).to.deep.equal({ [ROLLBACK_TO_ANNOTATION]: value });
      }
    });

    it('does not change its argument', () => {
      const obj = deployment({ rollbackTo: { revision: 2 } });
      const copy = structuredClone(obj);
      rollbackToField(rollbackToAnnotation(obj));
      expect(obj).to.deep.equal(copy);
    });
  });

  describe('DaemonSet spec.templateGeneration <-> deprecated.daemonset.template.generation', () => {
    it('is always written to the annotation (0 included), as Convert_apps_DaemonSet_To_v1_DaemonSet does', () => {
      const ds = (spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'extensions/v1beta1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { template, ...spec } });
      expect(templateGenerationAnnotation(ds({ templateGeneration: 4 })).metadata?.annotations).to.deep.equal({ [TG]: '4' });
      expect(templateGenerationAnnotation(ds({})).metadata?.annotations).to.deep.equal({ [TG]: '0' });
      expect(templateGenerationField(templateGenerationAnnotation(ds({ templateGeneration: 4 })))).to.deep.equal(ds({ templateGeneration: 4 }));
      // 0 reads back absent (omitempty), the annotation consumed.
      expect(templateGenerationField(templateGenerationAnnotation(ds({})))).to.deep.equal(ds({}));
    });

    it('keeps a non-numeric annotation as an annotation', () => {
      const v1: ApiObject = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', annotations: { [TG]: 'x' } }, spec: {} };
      expect(templateGenerationField(v1)).to.deep.equal(v1);
    });
  });

  describe('the selector default of extensions/v1beta1 and apps/v1beta1', () => {
    it('takes the template labels for an absent selector and empty object labels', () => {
      const obj: ApiObject = { metadata: { name: 'x' }, spec: { template } };
      defaultSelectorFromTemplate(obj);
      expect(obj.metadata?.labels).to.deep.equal({ app: 'web' });
      expect((obj.spec as Record<string, unknown>).selector).to.deep.equal({ matchLabels: { app: 'web' } });
    });

    it('leaves a given selector and given labels, and does nothing without template labels', () => {
      const obj: ApiObject = { metadata: { name: 'x', labels: { mine: 'yes' } }, spec: { selector: { matchLabels: { other: 'v' } }, template } };
      defaultSelectorFromTemplate(obj);
      expect(obj.metadata?.labels).to.deep.equal({ mine: 'yes' });
      expect((obj.spec as Record<string, unknown>).selector).to.deep.equal({ matchLabels: { other: 'v' } });
      const bare: ApiObject = { metadata: { name: 'y' }, spec: { template: { spec: {} } } };
      defaultSelectorFromTemplate(bare);
      expect(bare).to.deep.equal({ metadata: { name: 'y' }, spec: { template: { spec: {} } } });
    });
  });
});

describe('removed workload versions: protobuf', () => {
  it('has every kind and its list at its group version, and the old Scales', () => {
    const kinds: Array<[string, string[]]> = [
      ['apps/v1beta1', ['Deployment', 'StatefulSet', 'ControllerRevision']],
      ['apps/v1beta2', ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ControllerRevision']],
      ['extensions/v1beta1', ['Deployment', 'DaemonSet', 'ReplicaSet', 'NetworkPolicy']],
    ];
    for (const [gv, names] of kinds) {
      for (const k of names) for (const kind of [k, `${k}List`]) expect(hasProtobuf(gv, kind), `${gv} ${kind}`).to.equal(true);
      expect(hasProtobuf(gv, 'Scale'), `${gv} Scale`).to.equal(true);
    }
  });

  it('round trips spec.rollbackTo, spec.templateGeneration and an old Scale', () => {
    const objects: ApiObject[] = [
      { apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, rollbackTo: { revision: 3 }, revisionHistoryLimit: 2147483647 } },
      { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, rollbackTo: {}, paused: true } },
      {
        apiVersion: 'extensions/v1beta1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { templateGeneration: 7, updateStrategy: { type: 'OnDelete' } },
        status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
      },
      { apiVersion: 'apps/v1beta2', kind: 'Scale', metadata: { name: 's' }, spec: { replicas: 2 }, status: { replicas: 1, selector: { app: 'web' }, targetSelector: 'app=web' } },
    ];
    for (const obj of objects) expect(decodeProtobuf(encodeProtobuf(obj)), `${obj.apiVersion} ${obj.kind}`).to.deep.equal(obj);
  });

  describe('byte equality with protoc --encode', function () {
    this.timeout(300_000);
    before(function () { try { requireProtoc(); } catch { this.skip(); } });

    it('rollbackTo is field 8 of DeploymentSpec, templateGeneration field 5 of DaemonSetSpec', () => {
      const rollback = protocEncode('k8s.io.api.extensions.v1beta1.RollbackConfig', 'revision: 3');
      expect(encodeMessage('k8s.io.api.apps.v1beta1.RollbackConfig', { revision: 3 }).toString('hex')).to.equal(rollback.toString('hex'));
      // The spec's last fields as protoc writes them alone: paused (7), rollbackTo (8).
      const tail = protocEncode('k8s.io.api.extensions.v1beta1.DeploymentSpec', 'paused: true rollbackTo { revision: 3 }').toString('hex');
      expect(encodeMessage('k8s.io.api.extensions.v1beta1.DeploymentSpec', { paused: true, rollbackTo: { revision: 3 } }).toString('hex').endsWith(tail)).to.equal(true);
      expect(encodeMessage('k8s.io.api.apps.v1beta1.DeploymentSpec', { paused: true, rollbackTo: { revision: 3 } }).toString('hex').endsWith(tail)).to.equal(true);
      const generation = protocEncode('k8s.io.api.extensions.v1beta1.DaemonSetSpec', 'minReadySeconds: 0 templateGeneration: 2').toString('hex');
      expect(encodeMessage('k8s.io.api.extensions.v1beta1.DaemonSetSpec', { templateGeneration: 2 }).toString('hex').endsWith(generation)).to.equal(true);
    });
  });
});
