/**
 * kubectl's columns for pods (NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE
 * NOMINATED NODE READINESS GATES), with the cells computed as kube's printPod does: sidecars
 * (init containers with restartPolicy Always) count as containers, init containers show as
 * Init:<n>/<m> or Init:<reason> while the pod initializes, restarts are summed with the time of
 * the last one, and readiness gates count the conditions that are True.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Json, isObject, record, records, text } from '../json-fields';

const stateOf = (s: Json): Json => record(s, 'state') ?? {};
const lastTerminated = (s: Json): string => text(record(record(s, 'lastState') ?? {}, 'terminated') ?? {}, 'finishedAt');
const later = (a: string, b: string): string => (b && (!a || Date.parse(b) > Date.parse(a)) ? b : a);
const exitReason = (t: Json, prefix: string): string => (
  text(t, 'reason') ? `${prefix}${text(t, 'reason')}` : t.signal ? `${prefix}Signal:${t.signal}` : `${prefix}ExitCode:${t.exitCode ?? 0}`);
const conditionTrue = (status: Json, type: string): boolean => records(status, 'conditions').some((c) => text(c, 'type') === type && text(c, 'status') === 'True');

interface Row { ready: number; total: number; reason: string; restarts: number; last: string }

/** printPod's READY, STATUS and RESTARTS inputs. */
function summarize(pod: Json, spec: Json, status: Json): Row {
  const sidecars = new Set(records(spec, 'initContainers').filter((c) => c.restartPolicy === 'Always').map((c) => text(c, 'name')));
  const row: Row = { ready: 0, total: records(spec, 'containers').length + sidecars.size, reason: text(status, 'reason') || text(status, 'phase'), restarts: 0, last: '' };
  if (records(status, 'conditions').some((c) => text(c, 'type') === 'PodScheduled' && text(c, 'reason') === 'SchedulingGated')) row.reason = 'SchedulingGated';
  let sidecarRestarts = 0;
  let sidecarLast = '';
  let initializing = false;
  const initStatuses = records(status, 'initContainerStatuses');
  for (let i = 0; i < initStatuses.length; i++) {
    const s = initStatuses[i];
    const restartCount = typeof s.restartCount === 'number' ? s.restartCount : 0;
    row.restarts += restartCount;
    row.last = later(row.last, lastTerminated(s));
    const sidecar = sidecars.has(text(s, 'name'));
    if (sidecar) {
      sidecarRestarts += restartCount;
      sidecarLast = later(sidecarLast, lastTerminated(s));
    }
    const terminated = record(stateOf(s), 'terminated');
    const waiting = record(stateOf(s), 'waiting');
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && s.started === true) {
      if (s.ready === true) row.ready++;
      continue;
    }
    if (terminated) row.reason = exitReason(terminated, 'Init:');
    else if (waiting && text(waiting, 'reason') && text(waiting, 'reason') !== 'PodInitializing') row.reason = `Init:${text(waiting, 'reason')}`;
    else row.reason = `Init:${i}/${records(spec, 'initContainers').length}`;
    initializing = true;
    break;
  }
  if (!initializing || conditionTrue(status, 'Initialized')) {
    row.restarts = sidecarRestarts;
    row.last = sidecarLast;
    let hasRunning = false;
    for (const s of [...records(status, 'containerStatuses')].reverse()) {
      row.restarts += typeof s.restartCount === 'number' ? s.restartCount : 0;
      row.last = later(row.last, lastTerminated(s));
      const waiting = record(stateOf(s), 'waiting');
      const terminated = record(stateOf(s), 'terminated');
      if (waiting && text(waiting, 'reason')) row.reason = text(waiting, 'reason');
      else if (terminated) row.reason = exitReason(terminated, '');
      else if (s.ready === true && record(stateOf(s), 'running')) {
        hasRunning = true;
        row.ready++;
      }
    }
    if (row.reason === 'Completed' && hasRunning) row.reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }
  const deleting = isObject(pod.metadata) && !!pod.metadata.deletionTimestamp;
  if (deleting && text(status, 'reason') === 'NodeLost') row.reason = 'Unknown';
  else if (deleting && !['Succeeded', 'Failed'].includes(text(status, 'phase'))) row.reason = 'Terminating';
  return row;
}

/** READINESS GATES: True conditions among the gates, or <none>. */
function readinessGatesCell(spec: Json, status: Json): string {
  const gates = records(spec, 'readinessGates');
  if (!gates.length) return '<none>';
  const conditions = records(status, 'conditions');
  const ready = gates.filter((g) => {
    const c = conditions.find((cond) => text(cond, 'type') === text(g, 'conditionType'));
    return c !== undefined && text(c, 'status') === 'True';
  }).length;
  return `${ready}/${gates.length}`;
}

export const podTable: TableColumns = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn,
    column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', { priority: 1 }),
    column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', { priority: 1 }),
    column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
  ],
  cells: (obj, now) => {
    const pod = obj as Json;
    const spec = record(pod, 'spec') ?? {};
    const status = record(pod, 'status') ?? {};
    const row = summarize(pod, spec, status);
    const podIPs = records(status, 'podIPs');
    return [
      obj.metadata?.name ?? '',
      `${row.ready}/${row.total}`,
      row.reason,
      row.restarts && row.last ? `${row.restarts} (${translateTimestampSince(row.last, now)} ago)` : String(row.restarts),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      (podIPs.length ? text(podIPs[0], 'ip') : '') || '<none>',
      text(spec, 'nodeName') || '<none>',
      text(status, 'nominatedNodeName') || '<none>',
      readinessGatesCell(spec, status),
    ];
  },
};
