/** The admission plugin of lib/admission/policy, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { ValidatingAdmissionPolicyPlugin } from './plugin';
import { admissionAuthorizerFor } from '../cel-authorizer';

export { ValidatingAdmissionPolicyPlugin };

export const policyPlugins: PluginFactories = {
  ValidatingAdmissionPolicy: (deps) => Object.assign(new ValidatingAdmissionPolicyPlugin(deps), { authorizerFor: admissionAuthorizerFor(deps.authorization) }),
};
