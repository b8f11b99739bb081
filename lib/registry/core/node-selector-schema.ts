/**
 * core/v1 NodeSelector and TopologySelectorTerm (atomic structs): pod node affinity, a volume's
 * node affinity and a StorageClass's allowed topologies.
 */
import { Schema, atomicList, object, str } from '../../scheme/schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

const nodeSelectorRequirement: Schema = object({
  key: str('The label key that the selector applies to.'),
  operator: str('In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
  values: atomicList(str()),
}, { required: ['key', 'operator'] });

/** NodeSelectorTerm (atomic): requirements ANDed; an empty term matches nothing. */
export const nodeSelectorTerm: Schema = object({
  matchExpressions: atomicList(nodeSelectorRequirement, 'requirements by node labels.'),
  matchFields: atomicList(nodeSelectorRequirement, 'requirements by node fields.'),
}, atomic);

/** NodeSelector (atomic): terms ORed. */
export const nodeSelector: Schema = object({
  nodeSelectorTerms: atomicList(nodeSelectorTerm, 'Required. A list of node selector terms. The terms are ORed.'),
}, { required: ['nodeSelectorTerms'], ...atomic });

/** TopologySelectorTerm (atomic): label requirements ANDed. */
export const topologySelectorTerm: Schema = object({
  matchLabelExpressions: atomicList(object({
    key: str('The label key that the selector applies to.'),
    values: atomicList(str(), 'An array of string values; one must match the label to be selected.'),
  }, { required: ['key', 'values'] })),
}, atomic);
