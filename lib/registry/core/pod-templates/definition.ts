/**
 * PodTemplate (core/v1, namespaced): a named pod template ({ metadata, spec }) that nothing
 * instantiates by itself. Its template is defaulted and validated as every workload's is
 * (../pod-template.ts): a PodSpec at `template.spec`, labels at `template.labels`, no ephemeral
 * containers, any restart policy. metadata.generation starts at 1 and counts template changes.
 * DELETE answers the PodTemplate.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { TableColumns, column, nameColumn } from '../../../meta/table';
import { Naming } from '../../../naming';
import { Json, record } from '../json-fields';
import { templateContainerCells } from '../template-columns';
import { formatLabels } from '../../../meta/label-format';
import { semanticEqual } from '../semantic-equal';
import { defaultPodTemplateSpec, podVolumeRules, validatePodTemplateSpec } from '../pod-template';
import { podTemplateSchema } from './schema';

/** kubectl's NAME CONTAINERS IMAGES POD LABELS (printPodTemplate: no Age column). */
const podTemplateTable: TableColumns = {
  columns: [
    nameColumn,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  cells: (obj) => {
    const template = record(obj as Json, 'template') ?? {};
    const [containers, images] = templateContainerCells(template);
    return [
      obj.metadata?.name ?? '', containers, images,
      formatLabels(record(template, 'metadata')?.labels),
    ];
  },
};

/** The PodTemplate kind; volume and claim rules follow the server's feature gates. */
export function podTemplateResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const validate = (obj: ApiObject) => validatePodTemplateSpec(obj.template, 'template', volumes);
  return {
    group: '', version: 'v1', kind: 'PodTemplate', listKind: 'PodTemplateList', resource: 'podtemplates', singular: 'podtemplate',
    namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: podTemplateSchema,
    table: podTemplateTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, podTemplateSchema, 'PodTemplate'),
      default: (obj) => { defaultPodTemplateSpec(obj as Json, 'template', volumes); },
      prepareForCreate: (obj) => { defaultPodTemplateSpec(obj as Json, 'template', volumes); },
      prepareForUpdate: (obj) => { defaultPodTemplateSpec(obj as Json, 'template', volumes); },
      validate,
      validateUpdate: (obj) => validate(obj),
      // Any change of the template counts in metadata.generation (1 on create).
      specChanged: (obj, old) => !semanticEqual(obj.template, old.template),
    },
  };
}
