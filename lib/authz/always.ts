/** The AlwaysAllow and AlwaysDeny modes (for trusted setups and tests). */
import { Authorizer, RuleResolver, allow, noOpinion } from './authorizer';
import { NamedAuthorizer } from './mode-chain';

const ALL_RULES = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => allow(''),
  rulesFor: () => ({ rules: ALL_RULES, incomplete: false, errors: [] }),
};

const alwaysDeny: Authorizer & RuleResolver = {
  // As kube-apiserver: no opinion (a later mode may still allow), with this reason.
  authorize: () => noOpinion('Everything is forbidden.'),
  rulesFor: () => ({ rules: [], incomplete: false, errors: [] }),
};

export const alwaysAllowMode: NamedAuthorizer = { mode: 'AlwaysAllow', authorizer: alwaysAllow, rules: alwaysAllow };
export const alwaysDenyMode: NamedAuthorizer = { mode: 'AlwaysDeny', authorizer: alwaysDeny, rules: alwaysDeny };
