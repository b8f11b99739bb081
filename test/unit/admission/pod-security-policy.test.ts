/**
 * PodSecurity's namespace labels (levels, versions, invalid values, warn following enforce) and
 * its PodSecurityConfiguration (defaults, exemptions, strict decoding, one-line refusals).
 */
import { expect } from 'chai';
import { DEFAULT_CONFIG, readPodSecurityConfig } from '../../../lib/admission/pod-security/config';
import { LATEST, levelVersionString, policyLabels, policyToEvaluate, v1 } from '../../../lib/admission/pod-security/levels';

const names = policyLabels('kubernetes.io');
const defaults = DEFAULT_CONFIG.defaults;
const resolve = (labels: Record<string, string>, base = defaults) => {
  const { policy, errors } = policyToEvaluate(labels, base, names);
  return { enforce: levelVersionString(policy.enforce), audit: levelVersionString(policy.audit), warn: levelVersionString(policy.warn), errors: errors.map((e) => `${e.field}: ${e.message}`) };
};

describe('PodSecurity namespace labels', () => {
  it('no labels: the defaults (privileged:latest without a configuration)', () => {
    expect(resolve({})).to.deep.equal({ enforce: 'privileged:latest', audit: 'privileged:latest', warn: 'privileged:latest', errors: [] });
  });

  it('levels and versions per mode; warn follows a stricter enforce unless warn is labelled', () => {
    expect(resolve({ [names.enforce]: 'baseline', [names.enforceVersion]: 'v1.23', [names.audit]: 'restricted' }))
      .to.deep.equal({ enforce: 'baseline:v1.23', audit: 'restricted:latest', warn: 'baseline:v1.23', errors: [] });
    expect(resolve({ [names.enforce]: 'baseline', [names.warn]: 'privileged' }).warn).to.equal('privileged:latest');
    expect(resolve({ [names.enforce]: 'restricted', [names.warnVersion]: 'v1.30' }).warn).to.equal('restricted:v1.30');
    expect(resolve({ [names.enforceVersion]: 'v1.25' }).warn).to.equal('privileged:latest');
  });

  it('invalid values: enforce fails closed (restricted), audit and warn open (privileged), versions latest; each an error', () => {
    const r = resolve({ [names.enforce]: 'strict', [names.audit]: 'bogus', [names.warn]: 'x', [names.warnVersion]: '1.25', [names.enforceVersion]: 'v1.025' });
    expect(r.enforce).to.equal('restricted:latest');
    expect(r.audit).to.equal('privileged:latest');
    // An invalid enforce level does not raise warn.
    expect(r.warn).to.equal('privileged:latest');
    expect(r.errors).to.deep.equal([
      'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "v1.025": must be "latest" or "v1.x"',
      'metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "bogus": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "x": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.25": must be "latest" or "v1.x"',
    ]);
  });

  it('the orch flavor reads pod-security.orch.io labels only', () => {
    const orch = policyLabels('orch.io');
    expect(orch.enforce).to.equal('pod-security.orch.io/enforce');
    expect(levelVersionString(policyToEvaluate({ [orch.enforce]: 'baseline' }, defaults, orch).policy.enforce)).to.equal('baseline:latest');
    expect(levelVersionString(policyToEvaluate({ [names.enforce]: 'baseline' }, defaults, orch).policy.enforce)).to.equal('privileged:latest');
  });
});

const configOf = (body: Record<string, unknown>, apiVersion = 'pod-security.admission.config.orch.io/v1') =>
  readPodSecurityConfig({ apiVersion, kind: 'PodSecurityConfiguration', ...body });
const refusal = (raw: unknown) => {
  try {
    readPodSecurityConfig(raw);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

describe('PodSecurityConfiguration', () => {
  it('absent: privileged:latest everywhere, no exemptions; empty fields default the same', () => {
    expect(readPodSecurityConfig(undefined)).to.deep.equal(DEFAULT_CONFIG);
    expect(configOf({})).to.deep.equal(DEFAULT_CONFIG);
  });

  it('defaults and exemptions, in the orch.io and k8s.io spellings and v1beta1/v1alpha1', () => {
    const body = {
      defaults: { enforce: 'baseline', 'enforce-version': 'v1.29', audit: 'restricted', warn: 'restricted', 'warn-version': 'latest' },
      exemptions: { usernames: ['admin'], namespaces: ['ops'], runtimeClasses: ['kata'] },
    };
    for (const apiVersion of ['pod-security.admission.config.orch.io/v1', 'pod-security.admission.config.k8s.io/v1',
      'pod-security.admission.config.k8s.io/v1beta1', 'pod-security.admission.config.k8s.io/v1alpha1']) {
      const c = configOf(body, apiVersion);
      expect(c.defaults.enforce).to.deep.equal({ level: 'baseline', version: v1(29) });
      expect(c.defaults.audit).to.deep.equal({ level: 'restricted', version: LATEST });
      expect(c.exemptions).to.deep.equal({ usernames: ['admin'], namespaces: ['ops'], runtimeClasses: ['kata'] });
    }
  });

  it('bad configurations are refused with one line', () => {
    expect(refusal({ apiVersion: 'v1', kind: 'PodSecurityConfiguration' }))
      .to.equal('expected kind PodSecurityConfiguration of pod-security.admission.config.orch.io/v1, got "PodSecurityConfiguration" of "v1"');
    expect(refusal({ apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration', default: {} }))
      .to.equal('strict decoding error: unknown field "default"');
    expect(refusal({ apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration', exemptions: { users: [] } }))
      .to.equal('strict decoding error: unknown field "exemptions.users"');
    expect(refusal({ apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'strict', 'audit-version': '1.2' } }))
      .to.equal('PodSecurity invalid: [defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, '
        + 'defaults.audit-version: Invalid value: "1.2": must be "latest" or "v1.x"]');
    expect(refusal({
      apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration',
      exemptions: { namespaces: ['Bad_NS', 'ok', 'ok'], usernames: [''], runtimeClasses: ['a.b'] },
    })).to.equal('PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case '
      + 'alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used '
      + 'for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.namespaces[2]: Duplicate value: "ok", '
      + 'exemptions.usernames[0]: Invalid value: "": username must not be empty]');
    for (const message of [refusal('x'), refusal({ apiVersion: 'pod-security.admission.config.orch.io/v1', kind: 'PodSecurityConfiguration', defaults: [] })]) {
      expect(message).to.not.equal('');
      expect(message).to.not.contain('\n');
    }
  });
});
