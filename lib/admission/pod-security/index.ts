/** The admission plugins of lib/admission/pod-security, by name (see ../registry.ts). */
import type { PluginFactories } from '../registry';

export const podSecurityPlugins: PluginFactories = {};
