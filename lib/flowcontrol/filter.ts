/**
 * The priority-and-fairness filter (kube-apiserver 1.32's WithPriorityAndFairness), in the handler
 * chain where the in-flight limits stand (after authentication and impersonation, before
 * authorization). Every request but the long-running non-watch ones (exec, attach, proxy, ...) is
 * classified and answered with the `X-Kubernetes-PF-FlowSchema-UID` and
 * `X-Kubernetes-PF-PriorityLevel-UID` headers; an exempt level runs it at once; a limited level
 * runs it when its queue set dispatches it, holding its seats until the handler returns (for a
 * watch: once its initial events are sent and the stream has started), or answers 429
 * `Too many requests, please try again later.` with a Retry-After: at once (queue full, Reject
 * level full) or after waiting a quarter of the request timeout (at most a minute), as kube.
 */
import type { Context, Next } from 'koa';
import { performance } from 'node:perf_hooks';
import type { RequestInfo } from '../api/request-info';
import { errors } from '../meta/api-errors';
import type { UserInfo } from '../meta/user';
import type { TerminationMetrics } from '../api/metrics/termination-metrics';
import type { Dispatcher } from './dispatcher';
import type { FlowControlMetrics, FlowRecorder, RejectReason } from './metrics';
import type { Ticket, WaitingRequest } from './queueset';
import { Counts, estimateWork, workReadsCounts } from './seats';
import { DroppedRequestsTracker } from './retry-after';
import type { RequestDigest } from './types';

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';
export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

export interface FilterOptions {
  dispatcher: Dispatcher;
  /** Long-running requests (watch included; the filter tells watches apart itself). */
  isLongRunning(info: RequestInfo): boolean;
  /** A served group's name in Kubernetes' spelling, when the flavor spells it otherwise. */
  groupAlias?(group: string): string | undefined;
  /** Health probes: classified, but never queued and no seat taken (as the plain in-flight limits). */
  isHealthProbe(info: RequestInfo): boolean;
  /** The stored-object and watcher counts of a request's resource (seats). */
  counts(info: RequestInfo): Counts;
  /** How long a request may wait in its queue (kube: a quarter of --request-timeout, at most 1m). */
  waitLimitMs: number;
  metrics?: FlowControlMetrics;
  terminations?: TerminationMetrics;
}

const NO_COUNTS: Counts = { objects: () => undefined, watchers: () => 0 };

export function priorityAndFairness(opts: FilterOptions): (ctx: Context, next: Next) => Promise<void> {
  const { dispatcher, metrics } = opts;
  const dropped = new DroppedRequestsTracker();

  const reject = (ctx: Context, info: RequestInfo, level: string, flow: FlowRecorder | undefined, reason: RejectReason): Promise<void> => {
    flow?.rejected(reason);
    dropped.record(level);
    opts.terminations?.record(ctx.method, info, ctx.get('content-type'), 429);
    return Promise.reject(errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, dropped.retryAfter(level)));
  };

  return async (ctx: Context, next: Next): Promise<void> => {
    const info = ctx.state.requestInfo as RequestInfo;
    const isWatch = info.verb === 'watch';
    if (!isWatch && opts.isLongRunning(info)) return next();
    const user = ctx.state.user as UserInfo | undefined;
    const digest: RequestDigest = {
      user: user ?? { name: '', groups: [] }, isResourceRequest: info.isResourceRequest, verb: info.verb,
      apiGroup: info.group, apiGroupAlias: opts.groupAlias?.(info.group), resource: info.resource, subresource: info.subresource, namespace: info.namespace, path: info.path,
    };
    const c = dispatcher.classify(digest);
    const level = c.level;
    // Straight on the response (nothing is sent yet): koa's ctx.set only adds checks for arrays and non-strings.
    ctx.res.setHeader(FLOW_SCHEMA_UID_HEADER, c.flowSchema.metadata.uid ?? '');
    ctx.res.setHeader(PRIORITY_LEVEL_UID_HEADER, level.pl.metadata.uid ?? '');
    const type = isWatch ? 'watch' : 'regular';
    let flow: FlowRecorder | undefined;
    if (metrics) {
      const recorders = c.recorders ??= {};
      flow = recorders[type] ??= metrics.flow(level.name, c.flowSchema.metadata.name, type);
    }

    if (level.exempt || !level.queues || opts.isHealthProbe(info)) {
      flow?.dispatched.inc();
      flow?.executing.inc();
      flow?.seats.inc();
      level.integrator.set(++level.exemptSeats);
      const started = performance.now();
      try {
        await next();
      } finally {
        level.integrator.set(--level.exemptSeats);
        flow?.executing.dec();
        flow?.seats.dec();
        flow?.execution.observe((performance.now() - started) / 1000);
      }
      return;
    }

    // The query is parsed only for the lists and watches whose seats depend on it.
    const querystring = ctx.querystring;
    const work = estimateWork({ verb: info.verb, isResourceRequest: info.isResourceRequest, resource: info.resource, name: info.name ?? info.listName, get query() { return new URLSearchParams(querystring); } },
      info.isResourceRequest && workReadsCounts(info.verb) ? opts.counts(info) : NO_COUNTS, level.maxSeats);
    flow?.estimatedSeats.observe(Math.max(work.initialSeats, work.finalSeats));
    const arrived = performance.now();
    let settleLater: ((o: Ticket | RejectReason) => void) | undefined;
    const outcome = level.queues.start(work, c.flowKey, c.flowHash, (o) => settleLater?.(o));
    let ticket: Ticket;
    if (typeof outcome === 'string') {
      flow?.waitRejected.observe(0);
      return reject(ctx, info, level.name, flow, outcome);
    } else if ('finish' in outcome) {
      ticket = outcome;
    } else {
      const waiting: WaitingRequest = outcome;
      const queues = level.queues;
      flow?.queueLength.observe(queues.queueLength(waiting));
      flow?.inqueue.inc();
      const result = await new Promise<Ticket | RejectReason>((resolve) => {
        const done = (o: Ticket | RejectReason) => { clearTimeout(timer); ctx.req.off('close', onClose); resolve(o); };
        const timer = setTimeout(() => { if (queues.cancel(waiting)) done('time-out'); }, opts.waitLimitMs);
        const onClose = () => { if (queues.cancel(waiting)) done('cancelled'); };
        ctx.req.once('close', onClose);
        settleLater = done;
      });
      flow?.inqueue.dec();
      if (typeof result === 'string') {
        flow?.waitRejected.observe((performance.now() - arrived) / 1000);
        return reject(ctx, info, level.name, flow, result);
      }
      ticket = result;
    }
    flow?.waitExecuted.observe((performance.now() - arrived) / 1000);
    flow?.dispatched.inc();
    flow?.executing.inc();
    flow?.seats.inc(work.initialSeats);
    const started = performance.now();
    try {
      await next();
    } finally {
      ticket.finish();
      flow?.executing.dec();
      flow?.seats.dec(work.initialSeats);
      flow?.execution.observe((performance.now() - started) / 1000);
    }
  };
}
