/**
 * The shared pod-template module (lib/registry/core/pod-template.ts) at a workload's path
 * (`spec.template`): the template's defaults, ValidatePodTemplateSpec's paths below any prefix,
 * and the rules workload kinds add (restart policy, activeDeadlineSeconds, selector and labels),
 * with Kubernetes' paths and messages.
 */
import { expect } from 'chai';
import {
  defaultPodTemplateSpec, podVolumeRules, validatePodTemplateSpec, validateTemplateLabelsSelected,
  validateTemplateNoActiveDeadline, validateTemplateRestartPolicy,
} from '../../../../lib/registry/core/pod-template';
import { flavors } from '../../../../lib/naming';

const volumes = podVolumeRules(Object.values(flavors)[0]);
const template = (spec: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec },
});
const brief = (errs: Array<{ field: string; type: string; message: string }>) => errs.map((e) => [e.field, e.type, e.message]);

describe('core/pod-template', () => {
  it('defaults an absent template in its holder (metadata, spec and the PodSpec defaults)', () => {
    const spec: Record<string, unknown> = {};
    const t = defaultPodTemplateSpec(spec, 'template', volumes);
    expect(spec.template).to.equal(t);
    expect(t.metadata).to.deep.equal({ creationTimestamp: null });
    expect(t.spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 });
  });

  it('validates a defaulted template at the prefix given, with no error when valid', () => {
    const holder: Record<string, unknown> = { template: template() };
    defaultPodTemplateSpec(holder, 'template', volumes);
    expect(validatePodTemplateSpec(holder.template, 'spec.template', volumes)).to.deep.equal([]);
  });

  it('reports under the prefix: labels at <path>.labels, the spec at <path>.spec', () => {
    const holder: Record<string, unknown> = { template: { metadata: { labels: { app: '-x' } }, spec: { containers: [] } } };
    defaultPodTemplateSpec(holder, 'template', volumes);
    const errs = brief(validatePodTemplateSpec(holder.template, 'spec.template', volumes));
    expect(errs.map(([f, t]) => [f, t])).to.have.deep.members([
      ['spec.template.labels', 'FieldValueInvalid'],
      ['spec.template.spec.containers', 'FieldValueRequired'],
    ]);
  });

  it('allows an unset host port on the host network in a template, not a different one', () => {
    const holder: Record<string, unknown> = { template: template({ hostNetwork: true, containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 82 }] }] }) };
    defaultPodTemplateSpec(holder, 'template', volumes);
    expect(brief(validatePodTemplateSpec(holder.template, 'spec.template', volumes))).to.deep.equal([
      ['spec.template.spec.containers[0].ports[1].hostPort', 'FieldValueInvalid', 'Invalid value: 82: must match `containerPort` when `hostNetwork` is true'],
    ]);
  });

  it('gives the workloads\' template rules with Kubernetes\' paths and messages', () => {
    expect(brief(validateTemplateRestartPolicy(template({ restartPolicy: 'Never' }), 'spec.template', ['Always']))).to.deep.equal([
      ['spec.template.spec.restartPolicy', 'FieldValueNotSupported', 'Unsupported value: "Never": supported values: "Always"'],
    ]);
    expect(validateTemplateRestartPolicy(template({ restartPolicy: 'Always' }), 'spec.template', ['Always'])).to.deep.equal([]);
    expect(brief(validateTemplateNoActiveDeadline(template({ activeDeadlineSeconds: 5 }), 'spec.template', 'ReplicaSet'))).to.deep.equal([
      ['spec.template.spec.activeDeadlineSeconds', 'FieldValueForbidden', 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported'],
    ]);
    expect(validateTemplateNoActiveDeadline(template(), 'spec.template', 'ReplicaSet')).to.deep.equal([]);
    const selects = (want: string) => (labels: Record<string, string>) => labels.app === want;
    expect(validateTemplateLabelsSelected(template(), 'spec.template', selects('web'))).to.deep.equal([]);
    // The value part of the message is left out: Go prints the map as %#v (map[string]string{...}).
    const [err] = validateTemplateLabelsSelected(template(), 'spec.template', selects('db'));
    expect([err.field, err.type]).to.deep.equal(['spec.template.metadata.labels', 'FieldValueInvalid']);
    expect(err.message).to.match(/: `selector` does not match template `labels`$/);
  });
});
