/**
 * ComponentStatus (core/v1, cluster-scoped, short name `cs`, deprecated in v1.19+): read-only,
 * answered rather than stored (`virtual`). Its get and list are the handlers of
 * lib/api/component-status/, which probe etcd, the scheduler and the controller-manager as
 * kube-apiserver 1.32 does; every request is warned `v1 ComponentStatus is deprecated in
 * v1.19+`. kubectl's NAME STATUS MESSAGE ERROR table (printComponentStatus).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { TableColumns, column, nameColumn } from '../../../meta/table';
import { componentStatusSchema } from './schema';

interface Condition { type?: string; status?: string; message?: string; error?: string }

/** printComponentStatus: the Healthy condition's status (Healthy / Unhealthy), message and error; Unknown without one. */
const componentStatusTable: TableColumns = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  cells: (obj) => {
    const conditions = Array.isArray((obj as ApiObject).conditions) ? (obj as ApiObject).conditions as Condition[] : [];
    const healthy = conditions.find((c) => c?.type === 'Healthy');
    const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [obj.metadata?.name ?? '', status, healthy?.message ?? '', healthy?.error ?? ''];
  },
};

export function componentStatusResource(): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'ComponentStatus', listKind: 'ComponentStatusList',
    resource: 'componentstatuses', singular: 'componentstatus', namespaced: false, shortNames: ['cs'], categories: [],
    verbs: ['get', 'list'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: componentStatusSchema,
    table: componentStatusTable,
    virtual: true,
    deprecation: { deprecatedIn: [1, 19] },
    strategy: {},
  };
}
