/** Schema of Pod (core/v1): the shared PodSpec (../pod-spec/spec-schema.ts) and the Pod's status. */
import { Schema } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { podSpec } from '../pod-spec/spec-schema';
import { podStatus } from './status-schema';

export { podStatus };

export const podSchema: Schema = kindSchema({ spec: podSpec, status: podStatus },
  'Pod is a collection of containers that can run on a host. Here it is stored and validated; nothing runs it.');
