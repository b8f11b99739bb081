/** The admission plugins of lib/admission/resources, by name (see ../registry.ts). */
import type { PluginFactories } from '../registry';

export const resourcePlugins: PluginFactories = {};
