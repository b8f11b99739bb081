/** The verbs every RBAC kind serves. */
export const RBAC_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
