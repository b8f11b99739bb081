/**
 * FlowSchema at flowcontrol.apiserver.k8s.io v1beta1, v1beta2 and v1beta3 (removed from
 * Kubernetes in 1.26, 1.29 and 1.32; ../beta-versions.ts). Each has v1's fields, defaults
 * (matchingPrecedence 1000), validation, `/status` and table: Kubernetes' conversions are field
 * for field, so the objects are v1's relabelled (served-version.ts), under each version's type names.
 */
import { ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { schemaAtVersion } from '../../../scheme/versioned-schema';
import { servedOverStorage } from '../../served-version';
import { FLOWCONTROL_BETAS, FlowcontrolBeta, betaLifecycle } from '../beta-versions';
import { flowSchemaResource } from './definition';
import { flowSchemaSchema } from './schema';

function flowSchemaBetaResource(group: string, version: FlowcontrolBeta): ResourceDef {
  const v1 = flowSchemaResource(group);
  const schema = schemaAtVersion(flowSchemaSchema, 'io.k8s.api.flowcontrol.v1', `io.k8s.api.flowcontrol.${version}`);
  return servedOverStorage({
    ...v1,
    ...betaLifecycle(group, v1.kind, version),
    schema,
    strategy: { ...v1.strategy, checkDecode: (obj) => decodeProblem(obj, schema, v1.kind) },
  }, 'v1');
}

/** The FlowSchema defs of v1beta1, v1beta2 and v1beta3. */
export const flowSchemaBetaResources = (group: string): ResourceDef[] => FLOWCONTROL_BETAS.map((v) => flowSchemaBetaResource(group, v));
