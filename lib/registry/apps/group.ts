/**
 * The `apps` group. It has no domain in Kubernetes (like `batch`, `policy`, `autoscaling`), so
 * it is `apps` in both naming flavors and is never spelled through `naming.group()`. Its kinds
 * (ControllerRevision today; Deployment, ReplicaSet, StatefulSet and DaemonSet to come) live in
 * the folders beside this file.
 */
export const APPS_GROUP = 'apps';
