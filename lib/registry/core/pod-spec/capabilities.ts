/**
 * What the cluster allows containers, as Kubernetes' pkg/capabilities: today only whether
 * privileged containers are allowed (kube-apiserver's --allow-privileged). Like Kubernetes' it is
 * a process-wide setting that validation reads, set once by the server at start
 * (lib/server/server.ts) from its flags, because every kind with a pod template validates
 * containers through the same code and none of them takes server options. Several servers in one
 * process (tests) share it: the last one started sets it.
 */

let allowPrivileged = true;

/** Called by the server at start with --allow-privileged. */
export function setAllowPrivileged(allow: boolean): void {
  allowPrivileged = allow;
}

/** Whether a container may set securityContext.privileged: true. */
export function privilegedAllowed(): boolean {
  return allowPrivileged;
}
