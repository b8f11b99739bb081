/**
 * kubectl's CronJob table (printCronJob, Kubernetes 1.32): NAME SCHEDULE TIMEZONE SUSPEND ACTIVE
 * LAST SCHEDULE AGE, and with -o wide CONTAINERS IMAGES SELECTOR (the jobTemplate's). An unset
 * time zone or last schedule prints `<none>`, an unset suspend `<unset>`.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { ApiObject } from '../../../scheme/types';
import { record } from '../../core/json-fields';
import { doc } from '../descriptions';
import { containersColumn, imagesColumn, podSpecContainerCells, selectorColumn } from '../../core/template-columns';
import { formatLabelSelector } from '../../../meta/label-format';
import { specOf, statusOf } from './validation';

export const cronJobTable: TableColumns = {
  columns: [
    nameColumn,
    column('Schedule', 'string', doc('CronJobSpec', 'schedule')),
    column('Timezone', 'string', doc('CronJobSpec', 'timeZone')),
    column('Suspend', 'boolean', doc('CronJobSpec', 'suspend')),
    column('Active', 'integer', doc('CronJobStatus', 'active')),
    column('Last Schedule', 'string', doc('CronJobStatus', 'lastScheduleTime')),
    ageColumn,
    containersColumn, imagesColumn, selectorColumn(doc('JobSpec', 'selector')),
  ],
  cells: (obj, now) => {
    const cj = obj as ApiObject;
    const spec = specOf(cj);
    const status = statusOf(cj);
    const jobSpec = record(record(spec, 'jobTemplate') ?? {}, 'spec') ?? {};
    const [names, images] = podSpecContainerCells(record(record(jobSpec, 'template') ?? {}, 'spec') ?? {});
    const suspend = typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>';
    const last = typeof status.lastScheduleTime === 'string' ? translateTimestampSince(status.lastScheduleTime, now) : '<none>';
    return [
      cj.metadata?.name ?? '', typeof spec.schedule === 'string' ? spec.schedule : '',
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>', suspend,
      Array.isArray(status.active) ? status.active.length : 0, last, translateTimestampSince(cj.metadata?.creationTimestamp, now),
      names, images, formatLabelSelector(jobSpec.selector),
    ];
  },
};
