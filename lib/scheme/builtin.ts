/** The kinds this server serves, for one naming flavor. */
import { Naming } from '../naming';
import { ResourceDef } from './types';
import { namespaceResource } from '../registry/core/namespaces';
import { configMapResource } from '../registry/core/configmaps';
import { secretResource } from '../registry/core/secrets';

export function builtinResources(naming: Naming): ResourceDef[] {
  return [namespaceResource(naming), configMapResource(), secretResource()];
}
