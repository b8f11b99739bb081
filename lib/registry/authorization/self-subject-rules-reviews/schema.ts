/** Schema of authorization/v1 SelfSubjectRulesReview. */
import { Schema, atomicList, bool, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const selfSubjectRulesReviewSchema: Schema = kindSchema({
  spec: object({ namespace: str('The namespace to list the actions of.') }),
  status: object({
    resourceRules: atomicList(object({
      verbs: atomicList(str(), 'The verbs allowed on the resources; "*" means all.'),
      apiGroups: atomicList(str(), 'The API groups of the resources; "*" means all.'),
      resources: atomicList(str(), 'The resources; "*" means all, "*/foo" a subresource of every resource.'),
      resourceNames: atomicList(str(), 'Names the rule is limited to; empty means all.'),
    }, { required: ['verbs'] }), 'What the user may do with resources.'),
    nonResourceRules: atomicList(object({
      verbs: atomicList(str(), 'The verbs allowed on the URLs; "*" means all.'),
      nonResourceURLs: atomicList(str(), 'The URL paths; a "*" may end one.'),
    }, { required: ['verbs'] }), 'What the user may do with non-resource URLs.'),
    incomplete: bool('Whether the list may miss permissions: a mode in the chain (Webhook, Node...) cannot list what it allows.'),
    evaluationError: str('An error met while listing the rules; the list may be incomplete.'),
  }, { required: ['resourceRules', 'nonResourceRules', 'incomplete'] }),
}, 'SelfSubjectRulesReview enumerates the actions the current user can perform within a namespace.');
