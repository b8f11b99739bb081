/**
 * Job (batch/v1, namespaced, category `all`): pods run to completion. Defaults as Kubernetes
 * 1.32 (../job-defaults.ts); unless `manualSelector` is true the selector and the template's
 * job-name and controller-uid labels are generated from the Job's name and uid, as Kubernetes'
 * strategy does while validating a create (so a generated name is known); a Job without labels
 * takes the template's, generated ones included, as Kubernetes' Jobs read back from storage. metadata.generation
 * starts at 1 and counts spec changes; status is reset on create and written only through
 * `/status`, whose writes keep the spec. Field selector `status.successful`. A DELETE without a
 * propagation policy orphans the pods (batch/v1's legacy default; kubectl asks for background).
 *
 * Not here: the job controller that runs the pods and fills the status.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { Json } from '../../core/json-fields';
import { podVolumeRules } from '../../core/pod-template';
import { semanticEqual } from '../../core/semantic-equal';
import { BATCH_GROUP, BATCH_VERSION } from '../group';
import { defaultJob, labelsFromTemplate } from '../job-defaults';
import { jobSchema } from './schema';
import { jobTable } from './table';
import { generateSelector, specOf, statusOf, validateJob, validateJobStatusUpdate, validateJobUpdate } from './validation';

const KIND = 'Job';

/** The Job kind; the template's volume rules follow the server's flavor and feature gates. */
export function jobResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const defaults = (obj: ApiObject) => defaultJob(obj as Json, volumes);
  return {
    group: BATCH_GROUP, version: BATCH_VERSION, kind: KIND, listKind: 'JobList', resource: 'jobs', singular: 'job',
    namespaced: true, shortNames: [], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND)],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: jobSchema,
    table: jobTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, jobSchema, KIND),
      default: defaults,
      prepareForCreate: (obj) => { defaults(obj); obj.status = {}; },
      prepareForUpdate: (obj, old) => { defaults(obj); obj.status = old.status ?? {}; },
      specChanged: (obj, old) => !semanticEqual(obj.spec, old.spec),
      // Kubernetes generates the selector in the strategy's Validate, after the name is final;
      // the Job then reads back (decoded and defaulted from storage) with the template's labels.
      validate: (obj) => {
        generateSelector(obj);
        labelsFromTemplate(obj as Json);
        return validateJob(obj, volumes);
      },
      // A main write carries the stored status and a /status write the stored spec: each is
      // checked as Kubernetes' strategy for it checks (a write that changes neither, as a main one).
      validateUpdate: (obj, old) => {
        const statusChanged = !semanticEqual(obj.status, old.status);
        const specChanged = !semanticEqual(obj.spec, old.spec);
        return [
          ...(specChanged || !statusChanged ? validateJobUpdate(obj, old, volumes) : []),
          ...(statusChanged ? validateJobStatusUpdate(obj, old) : []),
        ];
      },
      fieldSet: (obj) => ({ 'status.successful': String(statusOf(obj).succeeded ?? 0) }),
      selectableFields: ['status.successful'],
      defaultGarbageCollectionPolicy: 'OrphanDependents',
    },
  };
}
