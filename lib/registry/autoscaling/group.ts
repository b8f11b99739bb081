/**
 * The `autoscaling` group. It has no domain in Kubernetes (like `apps`, `batch`, `policy`), so it
 * is `autoscaling` in both naming flavors and is never spelled through `naming.group()`. Served
 * here: HorizontalPodAutoscaler at v2 (preferred, storage) and v1; the autoscaling/v1 Scale is
 * the body of every `/scale` subresource.
 */
export const AUTOSCALING_GROUP = 'autoscaling';
