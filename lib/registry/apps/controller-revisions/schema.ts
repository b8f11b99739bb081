/**
 * Schema of apps/v1 ControllerRevision: `data`, a RawExtension (any embedded object, kept as
 * written), and `revision`, an int64 that Go always writes (its JSON tag has no omitempty).
 */
import { Schema, int64 } from '../../../scheme/schema';
import { kindSchema, rawExtension } from '../../../scheme/meta-schema';

export const controllerRevisionSchema: Schema = {
  ...kindSchema({
    // The shared RawExtension schema itself: OpenAPI writes it as a reference, as Kubernetes does.
    data: rawExtension,
    revision: int64('Revision indicates the revision of the state represented by Data.'),
  }, 'ControllerRevision implements an immutable snapshot of state data. Clients are responsible for serializing and deserializing the objects that contain their internal state. Once a ControllerRevision has been successfully created, it can not be updated. The API Server will fail validation of all requests that attempt to mutate the Data field. ControllerRevisions may, however, be deleted. Note that, due to its use by both the DaemonSet and StatefulSet controllers for update and rollback, this object is beta. However, it may be subject to name and representation changes in future releases, and clients should not depend on its stability. It is primarily for internal use by controllers.'),
  required: ['revision'],
};
