/** Schema of core/v1 PodTemplate: its template is the shared PodTemplateSpec (../pod-template.ts). */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType } from '../../../scheme/type-names';
import { podTemplateSpecSchema } from '../pod-template';

export const podTemplateSchema: Schema = kindSchema({
  template: fieldOfType(podTemplateSpecSchema, {
    description: 'Template defines the pods that will be created from this pod template. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  }),
}, 'PodTemplate describes a template for creating copies of a predefined pod.');
