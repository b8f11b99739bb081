/** The admission plugins of lib/admission/nodes (nodes and what node agents write), by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { taintNodesByCondition } from './taint-nodes-by-condition';
import { nodeRestriction } from './node-restriction';

export const nodePlugins: PluginFactories = {
  TaintNodesByCondition: (d) => taintNodesByCondition(d.naming),
  NodeRestriction: (d) => nodeRestriction(d.stores, d.naming),
};
