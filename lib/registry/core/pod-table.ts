/**
 * kubectl's columns for pods (NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE
 * NOMINATED NODE READINESS GATES), with the cells computed as kube's printPod does for the
 * fields served here (no init containers or readiness gates).
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../meta/table';
import { translateTimestampSince } from '../../meta/human-duration';
import { Json, isObject, record, records, text } from './volumes/json-fields';

/** printPod's STATUS: the phase or reason, overridden by container states and deletion. */
function statusCell(pod: Json, status: Json, statuses: Json[]): string {
  let reason = text(status, 'reason') || text(status, 'phase');
  if (records(status, 'conditions').some((c) => text(c, 'type') === 'PodScheduled' && text(c, 'reason') === 'SchedulingGated')) reason = 'SchedulingGated';
  let hasRunning = false;
  for (const s of [...statuses].reverse()) {
    const state = record(s, 'state') ?? {};
    const waiting = record(state, 'waiting');
    const terminated = record(state, 'terminated');
    if (waiting && text(waiting, 'reason')) reason = text(waiting, 'reason');
    else if (terminated && text(terminated, 'reason')) reason = text(terminated, 'reason');
    else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
    else if (s.ready === true && record(state, 'running')) hasRunning = true;
  }
  if (reason === 'Completed' && hasRunning) {
    reason = records(status, 'conditions').some((c) => text(c, 'type') === 'Ready' && text(c, 'status') === 'True') ? 'Running' : 'NotReady';
  }
  const deleting = isObject(pod.metadata) && !!pod.metadata.deletionTimestamp;
  if (deleting && text(status, 'reason') === 'NodeLost') return 'Unknown';
  if (deleting && !['Succeeded', 'Failed'].includes(text(status, 'phase'))) return 'Terminating';
  return reason;
}

/** printPod's RESTARTS: the sum, and how long ago the last one ended. */
function restartsCell(statuses: Json[], now: Date): string {
  let restarts = 0;
  let last = '';
  for (const s of statuses) {
    restarts += typeof s.restartCount === 'number' ? s.restartCount : 0;
    const finishedAt = text(record(record(s, 'lastState') ?? {}, 'terminated') ?? {}, 'finishedAt');
    if (finishedAt && (!last || Date.parse(finishedAt) > Date.parse(last))) last = finishedAt;
  }
  return restarts && last ? `${restarts} (${translateTimestampSince(last, now)} ago)` : String(restarts);
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
    const statuses = records(status, 'containerStatuses');
    const ready = statuses.filter((s) => s.ready === true && record(record(s, 'state') ?? {}, 'running')).length;
    const podIPs = records(status, 'podIPs');
    return [
      obj.metadata?.name ?? '',
      `${ready}/${records(spec, 'containers').length}`,
      statusCell(pod, status, statuses),
      restartsCell(statuses, now),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      (podIPs.length ? text(podIPs[0], 'ip') : '') || '<none>',
      text(spec, 'nodeName') || '<none>',
      text(status, 'nominatedNodeName') || '<none>',
      '<none>',
    ];
  },
};
