/** The admission plugin of lib/admission/limitranger, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { storeKey } from '../../registry/store-index';
import { LimitRangeLookup } from './lookup';
import { limitRangerPlugin } from './plugin';

export const limitRangerPlugins: PluginFactories = {
  // The stores are filled after the factories run: the lookup finds the LimitRange store when asked.
  LimitRanger: (d) => limitRangerPlugin(new LimitRangeLookup(() => d.stores.get(storeKey('', 'v1', 'limitranges')))),
};
