/** The admission plugins of lib/admission/pod, by name (see ../registry.ts). */
import type { PluginFactories } from '../registry';

export const podPlugins: PluginFactories = {};
