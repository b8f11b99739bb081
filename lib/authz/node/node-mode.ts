/**
 * The Node entry of --authorization-mode: the authorizer over a NodeGraph, the feeds that keep
 * the graph current (started before the first request is decided), and the static node rules.
 */
import { StoreIndex } from '../../registry/store-index';
import { Naming } from '../../naming';
import { NamedAuthorizer } from '../mode-chain';
import { NodeGraph } from './graph';
import { NodeGraphFeeds } from './graph-feeds';
import { NodeAuthorizer } from './node-authorizer';
import { nodeRules } from './node-rules';

export interface NodeMode {
  named: NamedAuthorizer;
  graph: NodeGraph;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function nodeMode(stores: StoreIndex, naming: Naming): NodeMode {
  const graph = new NodeGraph(`${naming.labelDomain}/config.mirror`);
  const feeds = new NodeGraphFeeds(stores, naming, graph);
  const authorizer = new NodeAuthorizer(graph, nodeRules(naming), naming);
  return {
    named: { mode: 'Node', authorizer, rules: authorizer },
    graph,
    start: () => feeds.start(),
    stop: () => feeds.stop(),
  };
}
