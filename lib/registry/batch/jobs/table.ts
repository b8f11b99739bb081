/**
 * kubectl's Job table (printJob, Kubernetes 1.32): NAME STATUS COMPLETIONS DURATION AGE, and
 * with -o wide CONTAINERS IMAGES SELECTOR. STATUS is the first true condition of Complete,
 * Failed, (being deleted: Terminating), Suspended, FailureTarget, SuccessCriteriaMet, else
 * Running; COMPLETIONS is succeeded/completions (`0/1 of 3` without completions and parallelism
 * above 1); DURATION runs from startTime to completionTime, or to now.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { humanDuration, translateTimestampSince } from '../../../meta/human-duration';
import { ApiObject } from '../../../scheme/types';
import { Json, record, records, text } from '../../core/json-fields';
import { doc } from '../descriptions';
import { containersColumn, imagesColumn, podSpecContainerCells, selectorColumn } from '../../core/template-columns';
import { formatLabelSelector } from '../../../meta/label-format';
import { specOf, statusOf } from './validation';

const hasCondition = (status: Json, type: string) => records(status, 'conditions').some((c) => text(c, 'type') === type && text(c, 'status') === 'True');

function jobStatusCell(obj: ApiObject, status: Json): string {
  if (hasCondition(status, 'Complete')) return 'Complete';
  if (hasCondition(status, 'Failed')) return 'Failed';
  if (obj.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(status, 'Suspended')) return 'Suspended';
  if (hasCondition(status, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(status, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function completionsCell(spec: Json, status: Json): string {
  const succeeded = typeof status.succeeded === 'number' ? status.succeeded : 0;
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(status: Json, now: Date): string {
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now.getTime();
  return humanDuration(end - start);
}

export const jobTable: TableColumns = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', doc('JobStatus', 'succeeded')),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    containersColumn, imagesColumn, selectorColumn(doc('JobSpec', 'selector')),
  ],
  cells: (obj, now) => {
    const job = obj as ApiObject;
    const spec = specOf(job);
    const status = statusOf(job);
    const [names, images] = podSpecContainerCells(record(record(spec, 'template') ?? {}, 'spec') ?? {});
    return [
      job.metadata?.name ?? '', jobStatusCell(job, status), completionsCell(spec, status), durationCell(status, now),
      translateTimestampSince(job.metadata?.creationTimestamp, now), names, images, formatLabelSelector(spec.selector),
    ];
  },
};
