/**
 * The aggregation layer's flags, as kube-apiserver 1.32 has them (its aggregator options):
 * --enable-aggregator-routing (false: a request goes to the Service's cluster IP; true: to one of
 * its ready endpoint addresses) and --aggregator-reject-forwarding-redirect (true: a redirect an
 * extension server answers is not passed to the client, which gets 502 instead). Parsed by
 * lib/server/flags.ts; read by lib/aggregation/index.ts and proxy.ts.
 */
import type { FlagDef } from '../flag-definitions';
import { bool, flag } from '../flag-definitions';

export const AGGREGATOR_FLAGS: readonly FlagDef[] = [
  flag('enable-aggregator-routing', 'enableAggregatorRouting', bool, false,
    'Send the requests for an APIService to an address of its Service\'s ready endpoints instead of the Service\'s cluster IP.'),
  flag('aggregator-reject-forwarding-redirect', 'aggregatorRejectForwardingRedirect', bool, true,
    'Answer 502 in place of a redirect (3xx with a Location) an extension API server returns, rather than passing it to the client.'),
];
