/**
 * The Pod plugins as the server builds them: registered by name (the default set runs
 * ServiceAccount, Priority and DefaultTolerationSeconds in Kubernetes' order), configured from
 * flags and the configuration file, and a bad configuration stopping the build with one line.
 */
import { expect } from 'chai';
import winston from 'winston';
import { buildAdmission } from '../../../lib/admission/registry';
import { PluginConfigs } from '../../../lib/admission/config-file';
import { AdmissionMetrics } from '../../../lib/admission/metrics';
import { podPlugins } from '../../../lib/admission/pod/index';
import { parseFlags } from '../../../lib/server/flags';
import { flavors } from '../../../lib/naming';
import { pod, podAttrs, specOf } from './pod-plugin-attrs';

const deps = (flags: string[]) => ({
  naming: flavors.orch, config: parseFlags(flags), stores: new Map(), log: winston.createLogger({ silent: true }),
  namespaces: { get: async () => ({ metadata: { name: 'team' } }) }, authorization: {}, metrics: new AdmissionMetrics(), configFile: '', caPem: '',
});

describe('Pod plugins in the server build', () => {
  it('registers every Pod plugin of the task by its Kubernetes name', () => {
    expect(Object.keys(podPlugins).sort()).to.deep.equal([
      'AlwaysPullImages', 'DefaultTolerationSeconds', 'ExtendedResourceToleration', 'LimitPodHardAntiAffinityTopology',
      'PodNodeSelector', 'PodTolerationRestriction', 'Priority', 'SecurityContextDeny', 'ServiceAccount',
    ]);
  });

  it('runs the default-enabled ones in Kubernetes order, and the others when enabled', async () => {
    const names = (await buildAdmission(deps([]), new PluginConfigs())).chain.names();
    const mine = names.filter((n) => n in podPlugins);
    expect(mine).to.deep.equal(['ServiceAccount', 'Priority', 'DefaultTolerationSeconds']);
    const all = (await buildAdmission(deps(['--enable-admission-plugins=PodTolerationRestriction,SecurityContextDeny,AlwaysPullImages']), new PluginConfigs())).chain.names();
    expect(all.filter((n) => n in podPlugins)).to.deep.equal(['SecurityContextDeny', 'ServiceAccount', 'AlwaysPullImages', 'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction']);
  });

  it('takes the toleration seconds from the two flags', async () => {
    const built = await buildAdmission(deps(['--default-not-ready-toleration-seconds=10', '--default-unreachable-toleration-seconds=20', '--disable-admission-plugins=ServiceAccount']), new PluginConfigs());
    const plugin = built.chain.plugins.find((p) => p.name === 'DefaultTolerationSeconds')!;
    const a = podAttrs(pod());
    await plugin.admit!(a);
    expect(specOf(a).tolerations.map((t: { tolerationSeconds: number }) => t.tolerationSeconds)).to.deep.equal([10, 20]);
  });

  it('stops the build on a bad plugin configuration, naming the plugin', async () => {
    const configs = new PluginConfigs(new Map([['PodTolerationRestriction', { kind: 'Configuration', apiVersion: 'podtolerationrestriction.admission.orch.io/v1alpha1', whitelist: 'all' }]]));
    let message = '';
    await buildAdmission(deps(['--enable-admission-plugins=PodTolerationRestriction']), configs).catch((err: Error) => { message = err.message; });
    expect(message).to.equal('couldn\'t init admission plugin "PodTolerationRestriction": whitelist: must be a list of tolerations');
  });
});
