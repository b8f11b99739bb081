/**
 * `GET /api/v1/componentstatuses` and `/api/v1/componentstatuses/<name>`, as kube-apiserver
 * 1.32's componentstatus REST answers them: `controller-manager` (https://127.0.0.1:10257/healthz),
 * `scheduler` (https://127.0.0.1:10259/healthz) and one `etcd-<n>` per etcd storage (here one,
 * `etcd-0`, probed through the server's etcd client), each a ComponentStatus with one Healthy
 * condition (True on Success, False on Failure, Unknown otherwise). Lists probe all at once and
 * are filtered by label and field selectors (metadata.name); items are sorted by name. An
 * unknown name answers 404 NotFound (Kubernetes answers a 500 `Component not found: <name>`).
 * Tables and the other representations come from the shared representation code.
 */
import type { Context } from 'koa';
import { CustomScope } from '../resource-handler';
import { customKey } from '../resource-handler';
import { negotiateResponse } from '../negotiation';
import { represent } from '../represent';
import { writeObject } from '../response-writer';
import { parseListOptions } from '../query';
import { errors } from '../../meta/api-errors';
import { matchesFields } from '../../meta/field-selector';
import { matchesLabels } from '../../meta/label-selector';
import { ApiObject } from '../../scheme/types';
import { ProbeOutcome, ProbeResult, probeEtcd, probeHttps } from './probes';

/** Where each component is probed; the defaults are Kubernetes' fixed local ports. */
export interface ComponentStatusOptions {
  /** Checks etcd (a read through the server's client); rejects when etcd cannot answer. */
  etcdCheck: () => Promise<unknown>;
  /** Per probe; Kubernetes waits 20 s. */
  timeoutMs?: number;
  schedulerPort?: number;
  controllerManagerPort?: number;
}

const CONDITION_STATUS: Record<ProbeResult, string> = { Success: 'True', Failure: 'False', Warning: 'Unknown', Unknown: 'Unknown' };

/** getComponentStatus: one ComponentStatus from a probe's outcome. */
export function componentStatusOf(name: string, o: ProbeOutcome): ApiObject {
  const condition: Record<string, string> = { type: 'Healthy', status: CONDITION_STATUS[o.result] };
  if (o.message) condition.message = o.message;
  if (o.error) condition.error = o.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [condition] };
}

/** The probes by component name. */
function servers(opts: ComponentStatusOptions): Record<string, () => Promise<ProbeOutcome>> {
  const timeout = opts.timeoutMs ?? 20_000;
  return {
    'controller-manager': () => probeHttps('127.0.0.1', opts.controllerManagerPort ?? 10257, '/healthz', timeout),
    'etcd-0': () => probeEtcd(opts.etcdCheck, timeout),
    scheduler: () => probeHttps('127.0.0.1', opts.schedulerPort ?? 10259, '/healthz', timeout),
  };
}

function write(ctx: Context, s: CustomScope, obj: ApiObject, target: 'object' | 'list'): void {
  const n = negotiateResponse(ctx.get('accept'), target, { apiVersion: 'v1', kind: s.def.kind });
  writeObject(ctx, 200, represent(s.def, obj, n, ctx.querystring), n);
}

/** The get and list handlers, keyed for the resource dispatcher. */
export function componentStatusHandlers(opts: ComponentStatusOptions): Array<[string, (s: CustomScope) => Promise<void>]> {
  const probes = servers(opts);
  const get = async (s: CustomScope) => {
    const name = s.info.name as string;
    const probe = Object.prototype.hasOwnProperty.call(probes, name) ? probes[name] : undefined;
    if (!probe) throw errors.notFound({ group: '', resource: 'componentstatuses' }, name);
    write(s.ctx, s, componentStatusOf(name, await probe()), 'object');
  };
  const list = async (s: CustomScope) => {
    const options = parseListOptions(new URLSearchParams(s.ctx.querystring), ['metadata.name']);
    const names = Object.keys(probes).sort();
    const items = await Promise.all(names.map(async (name) => componentStatusOf(name, await probes[name]())));
    const selected = items.filter((i) => (!options.labelSelector || matchesLabels(options.labelSelector, {}))
      && (!options.fieldSelector || matchesFields(options.fieldSelector, { 'metadata.name': i.metadata?.name ?? '' })));
    write(s.ctx, s, { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: selected }, 'list');
  };
  return [
    [customKey('', 'v1', 'componentstatuses', undefined, 'get'), get],
    [customKey('', 'v1', 'componentstatuses', undefined, 'list'), list],
  ];
}
