/**
 * AlwaysPullImages: every container (init, regular, ephemeral) of a new pod, or of an update
 * that brings an image the pod did not have, gets imagePullPolicy Always, so a node pulls (and
 * checks the pull credentials) each time instead of reusing another tenant's cached image.
 * The validating phase refuses such a write whose policy is not Always (e.g. a webhook changed
 * it afterwards), one error per container, as Kubernetes words them.
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { aggregateMessage } from '../../authz/authorizer';
import { ApiError } from '../../meta/api-errors';
import { podContainers, podSpec, str } from './pod-json';
import { admissionForbidden, isPodWrite } from './pod-attributes';

/** An update whose images were all in the pod already. */
function addsNoImage(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'UPDATE' || !attrs.oldObject) return false;
  const old = new Set(podContainers(podSpec(attrs.oldObject)).map((c) => str(c.container, 'image')));
  return podContainers(podSpec(attrs.object)).every((c) => old.has(str(c.container, 'image')));
}

// Only the pod itself (not status or other subresources), on create and on image-adding updates.
const ignores = (attrs: AdmissionAttributes): boolean =>
  !isPodWrite(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || addsNoImage(attrs);

export function alwaysPullImagesPlugin(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    async admit(attrs) {
      if (ignores(attrs)) return;
      for (const { container } of podContainers(podSpec(attrs.object))) container.imagePullPolicy = 'Always';
    },
    async validate(attrs) {
      if (ignores(attrs)) return;
      const refusals = podContainers(podSpec(attrs.object))
        .filter(({ container }) => container.imagePullPolicy !== 'Always')
        .map(({ container, path }) => admissionForbidden(attrs,
          `${path}.imagePullPolicy: Unsupported value: ${JSON.stringify(str(container, 'imagePullPolicy'))}: supported values: "Always"`));
      if (refusals.length === 1) throw refusals[0];
      // Kubernetes aggregates one Forbidden per container: [a, b].
      if (refusals.length) throw new ApiError(403, 'Forbidden', aggregateMessage(refusals.map((e) => e.message)), refusals[0].details);
    },
  };
}
