/**
 * --admission-control-config-file: an AdmissionConfiguration in YAML or JSON whose plugins carry
 * their configuration inline or by a path relative to the file; every problem is one line naming
 * the file.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AdmissionConfigError, readAdmissionConfigFile } from '../../../lib/admission/config-file';

describe('readAdmissionConfigFile', () => {
  let dir: string;
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const refusal = (file: string): string => {
    try {
      readAdmissionConfigFile(file);
    } catch (err) {
      expect(err).to.be.instanceOf(AdmissionConfigError);
      expect((err as Error).message.split('\n')).to.have.length(1);
      return (err as Error).message;
    }
    throw new Error('expected the file to be refused');
  };

  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'admission-config-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('without a file, no plugin has a configuration', () => {
    const configs = readAdmissionConfigFile('');
    expect(configs.names()).to.deep.equal([]);
    expect(configs.get('ImagePolicyWebhook')).to.equal(undefined);
  });

  it('reads YAML with a path relative to the file and an inline configuration', () => {
    const sub = path.join(dir, 'plugins');
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'image.yaml'), 'imagePolicy:\n  kubeConfigFile: /k\n  allowTTL: 50\n');
    const file = write('admission.yaml', [
      'apiVersion: apiserver.config.orch.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: ImagePolicyWebhook',
      '  path: plugins/image.yaml',
      '- name: PodNodeSelector',
      '  configuration:',
      '    podNodeSelectorPluginConfig:',
      '      clusterDefaultNodeSelector: env=prod',
      '- name: AlwaysAdmit',
    ].join('\n'));
    const configs = readAdmissionConfigFile(file);
    expect(configs.file).to.equal(file);
    expect(configs.names()).to.deep.equal(['ImagePolicyWebhook', 'PodNodeSelector', 'AlwaysAdmit']);
    expect(configs.get('ImagePolicyWebhook')).to.deep.equal({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 50 } });
    expect(configs.get('PodNodeSelector')).to.deep.equal({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=prod' } });
    expect(configs.get('AlwaysAdmit')).to.equal(undefined);
  });

  it('reads JSON, and Kubernetes\' apiserver.config.k8s.io spelling', () => {
    write('image.json', JSON.stringify({ imagePolicy: { kubeConfigFile: '/k' } }));
    const file = write('admission.json', JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ImagePolicyWebhook', path: 'image.json' }, { name: 'EventRateLimit', configuration: { limits: [] } }],
    }));
    const configs = readAdmissionConfigFile(file);
    expect(configs.get('ImagePolicyWebhook')).to.deep.equal({ imagePolicy: { kubeConfigFile: '/k' } });
    expect(configs.get('EventRateLimit')).to.deep.equal({ limits: [] });
  });

  it('refuses missing and unparsable files', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(refusal(missing)).to.equal(`cannot read ${missing}: ENOENT`);
    const broken = write('broken.yaml', 'kind: [AdmissionConfiguration\n  plugins: {');
    expect(refusal(broken)).to.match(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is neither JSON nor YAML: `));
    const target = write('refers.yaml', 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: AlwaysAdmit\n  path: nowhere.yaml\n');
    expect(refusal(target)).to.equal(`cannot read ${path.join(dir, 'nowhere.yaml')}: ENOENT`);
  });

  it('refuses the wrong kind or version, unknown or repeated plugins, and path with configuration', () => {
    const head = 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\n';
    const cases: Array<[string, string]> = [
      ['apiVersion: v1\nkind: ConfigMap\n', 'expected kind AdmissionConfiguration of apiserver.config.orch.io/v1, got "ConfigMap" of "v1"'],
      ['apiVersion: apiserver.config.orch.io/v2\nkind: AdmissionConfiguration\n', 'expected kind AdmissionConfiguration of apiserver.config.orch.io/v1, got "AdmissionConfiguration" of "apiserver.config.orch.io/v2"'],
      [`${head}plugins: {}\n`, 'plugins must be a list'],
      [`${head}plugins:\n- path: x\n`, 'plugins[0].name is required'],
      [`${head}plugins:\n- name: Foo\n`, 'plugins[0].name: admission plugin "Foo" is unknown'],
      [`${head}plugins:\n- name: AlwaysAdmit\n- name: AlwaysAdmit\n`, 'plugins[1].name: plugin "AlwaysAdmit" is configured twice'],
      [`${head}plugins:\n- name: AlwaysAdmit\n  path: x.yaml\n  configuration: {a: 1}\n`, 'plugins[0]: path and configuration are mutually exclusive'],
      [`${head}plugins:\n- name: AlwaysAdmit\n  configuration: [1]\n`, 'plugins[0].configuration must be an object'],
      ['- a\n- b\n', 'not an object'],
    ];
    for (const [text, why] of cases) {
      const file = write('case.yaml', text);
      expect(refusal(file), text).to.equal(`admission configuration ${file}: ${why}`);
    }
  });
});
