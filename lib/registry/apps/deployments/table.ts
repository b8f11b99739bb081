/**
 * kubectl's Deployment table (printDeployment in Kubernetes' printers.go): NAME READY
 * UP-TO-DATE AVAILABLE AGE, and with `-o wide` CONTAINERS IMAGES SELECTOR. READY is
 * `<readyReplicas>/<spec.replicas>`; UP-TO-DATE and AVAILABLE are declared strings and filled with
 * numbers, as Kubernetes does; an unconvertible selector prints `<invalid>`.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Json, record } from '../../core/json-fields';
import { containersColumn, count, imagesColumn, selectorColumn, specOf, statusOf, templateContainerCells } from '../../core/template-columns';
import { labelSelectorString } from '../../../meta/label-format';

export const deploymentTable: TableColumns = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn('Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.'),
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as Json);
    const status = statusOf(obj as Json);
    const [containers, images] = templateContainerCells(record(spec, 'template'));
    return [
      obj.metadata?.name ?? '',
      `${count(status, 'readyReplicas')}/${count(spec, 'replicas')}`,
      count(status, 'updatedReplicas'),
      count(status, 'availableReplicas'),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      containers, images,
      labelSelectorString(spec.selector) ?? '<invalid>',
    ];
  },
};
