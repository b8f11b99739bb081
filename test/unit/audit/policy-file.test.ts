/**
 * --audit-policy-file as kube-apiserver loads it: `Policy` of audit.orch.io/v1 or audit.k8s.io/v1,
 * YAML or JSON; what Kubernetes' validation refuses is refused with its field paths and words,
 * all of a file's problems on one line, prefixed `loading audit policy file:` and suffixed with
 * the file.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditPolicyError, readAuditPolicyFile } from '../../../lib/audit/policy-file';
import type { AuditPolicy } from '../../../lib/audit/types';

const GROUPS = ['audit.orch.io', 'audit.k8s.io'];

/** Kubernetes' reader_test policy, with the apiVersion to test. */
const yamlPolicy = (apiVersion: string) => `
apiVersion: ${apiVersion}
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs:
      - /healthz*
      - /version
  - level: RequestResponse
    users: ["tim"]
    userGroups: ["testers", "developers"]
    verbs: ["patch", "delete", "create"]
    resources:
      - group: ""
      - group: "rbac.authorization.k8s.io"
        resources: ["clusterroles", "clusterrolebindings"]
    namespaces: ["default", "kube-system"]
    omitManagedFields: true
  - level: Metadata
    resources:
      - group: ""
        resources: ["configmaps"]
        resourceNames: ["controller-leader"]
    omitStages: ["ResponseStarted"]
`;

const expected: AuditPolicy = {
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
    {
      level: 'RequestResponse', users: ['tim'], userGroups: ['testers', 'developers'], verbs: ['patch', 'delete', 'create'],
      resources: [{ group: '' }, { group: 'rbac.authorization.k8s.io', resources: ['clusterroles', 'clusterrolebindings'] }],
      namespaces: ['default', 'kube-system'], omitManagedFields: true,
    },
    { level: 'Metadata', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['controller-leader'] }], omitStages: ['ResponseStarted'] },
  ],
};

describe('readAuditPolicyFile', () => {
  let dir: string;
  let n = 0;
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'audit-policy-')); });
  after(() => { rmSync(dir, { recursive: true, force: true }); });

  const write = (text: string, ext = 'yaml') => {
    const file = path.join(dir, `policy-${++n}.${ext}`);
    writeFileSync(file, text);
    return file;
  };
  /** The message a file is refused with (fails the test when it loads). */
  const refusal = (text: string): { message: string; file: string } => {
    const file = write(text);
    try {
      readAuditPolicyFile(file, GROUPS);
    } catch (err) {
      expect(err).to.be.instanceOf(AuditPolicyError);
      return { message: (err as Error).message, file };
    }
    throw new Error('the policy loaded');
  };
  /** The validation error alone, between Kubernetes' prefix and suffix. */
  const problem = (text: string): string => {
    const { message, file } = refusal(text);
    expect(message.startsWith('loading audit policy file: ')).to.equal(true, message);
    expect(message.endsWith(`: from file ${file}`)).to.equal(true, message);
    expect(message).to.not.contain('\n');
    return message.slice('loading audit policy file: '.length, -`: from file ${file}`.length);
  };
  const policyWith = (rules: string, top = '') => `apiVersion: audit.k8s.io/v1\nkind: Policy\n${top}rules:\n${rules}`;

  describe('accepted', () => {
    for (const apiVersion of ['audit.orch.io/v1', 'audit.k8s.io/v1']) {
      it(`${apiVersion} in YAML`, () => {
        expect(readAuditPolicyFile(write(yamlPolicy(apiVersion)), GROUPS)).to.deep.equal(expected);
      });
    }

    it('JSON, which is YAML too', () => {
      const json = JSON.stringify({ apiVersion: 'audit.orch.io/v1', kind: 'Policy', ...expected }, null, 2);
      expect(readAuditPolicyFile(write(json, 'json'), GROUPS)).to.deep.equal(expected);
    });

    it('only the groups the server is given (the kubernetes flavor has no audit.orch.io)', () => {
      const file = write(yamlPolicy('audit.orch.io/v1'));
      expect(() => readAuditPolicyFile(file, ['audit.k8s.io'])).to.throw(AuditPolicyError, 'unknown group version field audit.orch.io/v1, Kind=Policy in policy');
    });

    it('fields it does not know are ignored with one warning, as kube-apiserver\'s lenient decoding', () => {
      // Kubernetes' reader_test: `verbs` indented into a resources entry; here also a typo at the rule and policy level.
      const text = policyWith('- level: None\n  resources:\n  - group: coordination.k8s.io\n    resources: ["leases"]\n    verbs: ["watch"]\n'
        + '- level: Metadata\n  verb: ["get"]\n', 'omitStage: ["RequestReceived"]\n');
      const warnings: string[] = [];
      const p = readAuditPolicyFile(write(text), GROUPS, (m) => warnings.push(m));
      expect(p.rules).to.deep.equal([{ level: 'None', resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }] }, { level: 'Metadata' }]);
      expect(warnings).to.deep.equal(['Audit policy contains errors, falling back to lenient decoding: strict decoding error: '
        + 'unknown field "omitStage", unknown field "rules[0].resources[0].verbs", unknown field "rules[1].verb"']);
      expect(() => readAuditPolicyFile(write(policyWith('- level: None\n')), GROUPS, (m) => warnings.push(m))).to.not.throw();
      expect(warnings).to.have.length(1);
    });

    it('policy-level omitManagedFields', () => {
      const p = readAuditPolicyFile(write(policyWith('  - level: Metadata\n', 'omitManagedFields: true\n')), GROUPS);
      expect(p.omitManagedFields).to.equal(true);
      expect(p.rules).to.deep.equal([{ level: 'Metadata' }]);
    });
  });

  describe('refused with Kubernetes\' message', () => {
    it('a level it does not know', () => {
      expect(problem(policyWith('  - level: Everything\n')))
        .to.equal('rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"');
    });

    it('a rule without a level', () => {
      expect(problem(policyWith('  - level: None\n  - users: [alice]\n'))).to.equal('rules[1].level: Required value');
    });

    it('resources and nonResourceURLs in one rule', () => {
      expect(problem(policyWith('  - level: None\n    resources: [{group: ""}]\n    nonResourceURLs: ["/x", "/y*"]\n')))
        .to.equal('rules[0].nonResourceURLs: Invalid value: []string{"/x", "/y*"}: rules cannot apply to both regular resources and non-resource URLs');
    });

    it('namespaces and nonResourceURLs in one rule', () => {
      expect(problem(policyWith('  - level: None\n    namespaces: [default]\n    nonResourceURLs: ["/x"]\n')))
        .to.equal('rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs');
    });

    it('non-resource URLs not starting with / or with * before the end', () => {
      expect(problem(policyWith('  - level: None\n    nonResourceURLs: ["*", "healthz", "/a*/b"]\n'))).to.equal('['
        + 'rules[0].nonResourceURLs[1]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character, '
        + 'rules[0].nonResourceURLs[2]: Invalid value: "/a*/b": non-resource URL wildcards \'*\' must be the final character of the rule]');
    });

    it('a stage it does not know, in the policy and in a rule', () => {
      const allowed = 'allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic';
      expect(problem(policyWith('  - level: None\n', 'omitStages: ["RequestReceived", "Started"]\n')))
        .to.equal(`omitStages[1]: Invalid value: "Started": ${allowed}`);
      expect(problem(policyWith('  - level: None\n    omitStages: ["Done"]\n')))
        .to.equal(`rules[0].omitStages[0]: Invalid value: "Done": ${allowed}`);
    });

    it('a group that is not a DNS subdomain (a group/version)', () => {
      expect(problem(policyWith('  - level: None\n    resources: [{group: "rbac.authorization.k8s.io/v1"}]\n')))
        .to.match(/^rules\[0\]\.resources\.group: Invalid value: "rbac\.authorization\.k8s\.io\/v1": a lowercase RFC 1123 subdomain must consist of/);
    });

    it('resourceNames without resources', () => {
      expect(problem(policyWith('  - level: None\n    resources: [{group: "", resourceNames: ["a"]}]\n')))
        .to.equal('rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource');
    });

    it('every problem of the file at once, as one aggregate', () => {
      expect(problem(policyWith('  - level: Loud\n  - level: None\n    omitStages: [Never]\n'))).to.equal('['
        + 'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse", '
        + 'rules[1].omitStages[0]: Invalid value: "Never": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]');
    });

    it('a wrong apiVersion or kind, or none', () => {
      expect(problem('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n'))
        .to.equal('unknown group version field audit.k8s.io/v1beta1, Kind=Policy in policy');
      expect(problem('apiVersion: rbac.authorization.k8s.io/v1\nkind: Policy\nrules: [{level: None}]\n'))
        .to.equal('unknown group version field rbac.authorization.k8s.io/v1, Kind=Policy in policy');
      expect(problem('apiVersion: audit.orch.io/v1\nkind: Event\nrules: [{level: None}]\n'))
        .to.equal('unknown group version field audit.orch.io/v1, Kind=Event in policy');
      expect(problem('rules: [{level: None}]\n')).to.equal('unknown group version field /, Kind= in policy');
    });

    it('a policy without rules', () => {
      expect(problem('apiVersion: audit.k8s.io/v1\nkind: Policy\n')).to.equal('loaded illegal policy with 0 rules');
      expect(problem('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n')).to.equal('loaded illegal policy with 0 rules');
    });

    it('an empty file, and one that is not YAML', () => {
      expect(problem('')).to.match(/^failed decoding: /);
      expect(problem('apiVersion: [audit.k8s.io/v1\n')).to.match(/^failed decoding: /);
    });

    it('a file it cannot read', () => {
      const missing = path.join(dir, 'no-such-policy.yaml');
      expect(() => readAuditPolicyFile(missing, GROUPS)).to.throw(AuditPolicyError,
        `loading audit policy file: failed to read file path ${JSON.stringify(missing)}: `);
    });
  });
});
