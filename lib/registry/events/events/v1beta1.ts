/**
 * Event at events.k8s.io/v1beta1 (events.orch.io/v1beta1): removed from Kubernetes in 1.25,
 * served here only when `--runtime-config` switches it on (deprecated, with Kubernetes' warning).
 * Its fields are events.k8s.io/v1's, converted to and from the stored core/v1 Event the same way
 * (pkg/apis/events/v1beta1/conversion.go: regarding, note, deprecatedSource and the deprecated
 * timestamps and count map to core's involvedObject, message, source, firstTimestamp,
 * lastTimestamp and count), so an event reads alike at all three versions.
 *
 * What differs is validation: Kubernetes' ValidateEventCreate and ValidateEventUpdate apply to
 * an events.k8s.io/v1beta1 request only the legacy rules core/v1 applies (for an event with an
 * eventTime: reportingController, reportingInstance, action and reason set, the length limits);
 * the strict rules of v1 (eventTime required, type Normal or Warning, the deprecated fields unset
 * on create, the series checked, fields immutable on update) are not applied.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { schemaAtVersion } from '../../../scheme/versioned-schema';
import { validateEvent } from '../../core/event-rules';
import { eventCoreToV1, eventV1ToCore } from './conversion';
import { eventV1Resource } from './definition';

/** legacyValidateEvent over the core form (reporting controller errors at `reportingController`). */
const validateLegacy = (obj: ApiObject) => validateEvent(eventV1ToCore(obj), 'reportingController');

/** events.k8s.io/v1beta1 Event over the core/v1 Events; `ttlSeconds`: --event-ttl. */
export function eventV1beta1Resource(naming: Naming, ttlSeconds?: number): ResourceDef {
  const v1 = eventV1Resource(naming, ttlSeconds);
  const apiVersion = `${v1.group}/v1beta1`;
  return {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    // A copy, so that OpenAPI names its struct fields in the v1beta1 package.
    schema: schemaAtVersion(v1.schema, 'io.k8s.api.events.v1', 'io.k8s.api.events.v1beta1'),
    deprecation: { deprecatedIn: [1, 22], removedIn: [1, 25], replacement: { group: v1.group, version: 'v1', kind: 'Event' } },
    versioning: {
      fromStorage: async (objects) => objects.map((o) => eventCoreToV1(o, apiVersion)),
      toStorage: async (object) => eventV1ToCore(object),
      servesStored: () => false,
    },
    strategy: { ...v1.strategy, validate: validateLegacy, validateUpdate: validateLegacy },
  };
}
