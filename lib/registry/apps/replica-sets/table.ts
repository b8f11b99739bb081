/**
 * kubectl's ReplicaSet table (printReplicaSet in Kubernetes' printers.go): NAME DESIRED CURRENT
 * READY AGE, and with `-o wide` CONTAINERS IMAGES SELECTOR (metav1.FormatLabelSelector: `<none>`
 * for a selector that selects everything, `<error>` for one that does not convert).
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Json, record } from '../../core/json-fields';
import { containersColumn, count, imagesColumn, selectorColumn, specOf, statusOf, templateContainerCells } from '../../core/template-columns';
import { labelSelectorString } from '../../../meta/label-format';

const RC_DOC = 'More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller';

export const replicaSetTable: TableColumns = {
  columns: [
    nameColumn,
    column('Desired', 'integer', `Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. ${RC_DOC}`),
    column('Current', 'integer', `Replicas is the most recently observed number of replicas. ${RC_DOC}`),
    column('Ready', 'integer', 'readyReplicas is the number of pods targeted by this ReplicaSet controller with a Ready Condition.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn('Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'),
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as Json);
    const status = statusOf(obj as Json);
    const [containers, images] = templateContainerCells(record(spec, 'template'));
    const selector = labelSelectorString(spec.selector);
    return [
      obj.metadata?.name ?? '',
      count(spec, 'replicas'),
      count(status, 'replicas'),
      count(status, 'readyReplicas'),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      containers, images,
      selector === undefined ? '<error>' : selector || '<none>',
    ];
  },
};
