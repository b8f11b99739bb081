/** The admission plugins of lib/admission/imagepolicy, by name (see ../registry.ts). */
import type { PluginFactories } from '../registry';

export const imagePolicyPlugins: PluginFactories = {};
