/** The admission plugin of lib/admission/policy, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { ValidatingAdmissionPolicyPlugin } from './plugin';

export { ValidatingAdmissionPolicyPlugin };

export const policyPlugins: PluginFactories = {
  ValidatingAdmissionPolicy: (deps) => new ValidatingAdmissionPolicyPlugin(deps),
};
