/** The admission plugins of lib/admission/eventratelimit, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { readEventRateLimitConfig } from './config';
import { eventRateLimit } from './event-rate-limit';

export const eventRateLimitPlugins: PluginFactories = {
  // The configuration is read now: a bad one (or none: no limits) stops the start.
  EventRateLimit: (d) => eventRateLimit(readEventRateLimitConfig(d.pluginConfig)),
};
