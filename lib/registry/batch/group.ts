/**
 * The `batch` group. It has no domain in Kubernetes (like `apps` and `policy`), so it is `batch`
 * in both naming flavors and is never spelled through `naming.group()`. Its kinds, Job and
 * CronJob (batch/v1), live in the folders beside this file; what both use (the JobSpec a Job
 * holds and a CronJob's jobTemplate holds, its validation, the table cells) sits here.
 */
export const BATCH_GROUP = 'batch';
export const BATCH_VERSION = 'v1';
