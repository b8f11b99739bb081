/** The admission plugins of lib/admission/webhook, by name (see ../registry.ts). */
import type { PluginFactories } from '../registry';

export const webhookPlugins: PluginFactories = {};
